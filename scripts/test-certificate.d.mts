/** Writes `key.pem` and `cert.pem` into `dir` with `openssl`; the two files' paths. */
export function writeTestCertificate(
  dir: string,
  options?: { names?: string[]; addresses?: string[]; days?: number },
): { key: string; cert: string };
