import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A self-signed certificate and its key, PEM. */
export interface TestCertificate {
  key: string;
  cert: string;
}

let made: TestCertificate | undefined;

/**
 * A certificate of the tests' own (made once per process with `openssl`, valid for two days) for
 * `push.test`, `h1.test` and 127.0.0.1: a client trusts it only when given it as `ca`.
 */
export function testCertificate(): TestCertificate {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'tidings-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=push.test',
        '-addext',
        'subjectAltName=DNS:push.test,DNS:h1.test,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    made = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
