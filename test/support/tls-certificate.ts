import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTestCertificate } from '../../scripts/test-certificate.mjs';

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
    const files = writeTestCertificate(dir, { names: ['push.test', 'h1.test'], addresses: ['127.0.0.1'] });
    made = { key: readFileSync(files.key, 'utf8'), cert: readFileSync(files.cert, 'utf8') };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
