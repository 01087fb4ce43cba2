import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { Hono } from 'hono';
import { ORIGIN } from './dashboard-app.js';

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** CBOR of a byte or text string's head (lengths up to 65535). */
function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
}
const cborText = (text: string) => Buffer.concat([cborHead(3, Buffer.byteLength(text)), Buffer.from(text)]);
const cborBytes = (bytes: Buffer) => Buffer.concat([cborHead(2, bytes.length), bytes]);

/**
 * A software authenticator for one P-256 passkey, answering for `dash.test` as a browser would:
 * what the route tests need without a browser (the browser test uses Chromium's virtual one).
 */
export function softAuthenticator() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  const credentialId = randomBytes(16);
  const rpIdHash = sha256(new URL(ORIGIN).hostname);
  let counter = 0;
  // COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}
  const coseKey = Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21]),
    cborBytes(Buffer.from(jwk.x!, 'base64url')),
    Buffer.from([0x22]),
    cborBytes(Buffer.from(jwk.y!, 'base64url')),
  ]);
  const clientData = (type: string, challenge: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin: ORIGIN, crossOrigin: false }));
  const counterBytes = () => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(++counter);
    return bytes;
  };
  return {
    id: b64url(credentialId),
    register(challenge: string): string {
      const idLength = Buffer.from([0, credentialId.length]);
      const authData = Buffer.concat([
        rpIdHash,
        Buffer.from([0x45]),
        counterBytes(),
        Buffer.alloc(16),
        idLength,
        credentialId,
        coseKey,
      ]);
      const attestation = Buffer.concat([
        Buffer.from([0xa3]),
        cborText('fmt'),
        cborText('none'),
        cborText('attStmt'),
        Buffer.from([0xa0]),
        cborText('authData'),
        cborBytes(authData),
      ]);
      return JSON.stringify({
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        response: {
          clientDataJSON: b64url(clientData('webauthn.create', challenge)),
          attestationObject: b64url(attestation),
          transports: ['internal'],
        },
        clientExtensionResults: {},
      });
    },
    assert(challenge: string): string {
      const authData = Buffer.concat([rpIdHash, Buffer.from([0x05]), counterBytes()]);
      const data = clientData('webauthn.get', challenge);
      const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), privateKey);
      return JSON.stringify({
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        response: {
          clientDataJSON: b64url(data),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
        },
        clientExtensionResults: {},
      });
    },
  };
}

/** A cookie jar of every cookie (the session and the pending sign-in), posting forms from ORIGIN. */
export function createJarBrowser(app: Hono) {
  const cookies = new Map<string, string>();
  async function request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set('Cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await app.request(`${ORIGIN}${path}`, { ...init, headers });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (value === '' || /Max-Age=0/i.test(set)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  }
  return {
    cookies,
    request,
    get: (path: string) => request(path),
    post: (path: string, form: Record<string, string>) =>
      request(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN },
        body: new URLSearchParams(form).toString(),
      }),
  };
}

/** The challenge in a page's passkey form (`data-options`, HTML-escaped JSON). */
export function challengeOf(html: string): string {
  const options = /data-options="([^"]*)"/.exec(html)?.[1] ?? '';
  const json = options.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  return (JSON.parse(json) as { challenge: string }).challenge;
}
