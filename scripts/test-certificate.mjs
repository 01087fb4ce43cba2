// A self-signed certificate for tests and benchmarks that talk TLS to a server of their own.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Writes `key.pem` and `cert.pem` into `dir` with `openssl`: an EC key and a certificate valid for
 * `days` whose subject alternative names are `names` (DNS) and `addresses` (IP). Returns the two
 * files' paths. A client trusts it only when told to (`ca`, or NODE_EXTRA_CA_CERTS).
 */
export function writeTestCertificate(dir, { names = [], addresses = [], days = 2 } = {}) {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const altNames = [...names.map((name) => `DNS:${name}`), ...addresses.map((address) => `IP:${address}`)];
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
      String(days),
      '-subj',
      `/CN=${names[0] ?? addresses[0] ?? 'localhost'}`,
      '-addext',
      `subjectAltName=${altNames.join(',')}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key, cert };
}
