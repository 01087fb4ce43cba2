// Types for http_ece (Encrypted Content-Encoding for HTTP, RFC 8188), which ships none.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  interface EceParams {
    version?: 'aes128gcm' | 'aesgcm';
    /** The local side's key pair: the sender's when encrypting, the receiver's when decrypting. */
    privateKey?: ECDH;
    /** The other side's public key (when encrypting; aes128gcm carries the sender's in its header). */
    dh?: string | Buffer;
    authSecret?: string | Buffer;
    salt?: string | Buffer;
    rs?: number;
  }

  const ece: {
    encrypt(buffer: Buffer, params: EceParams): Buffer;
    decrypt(buffer: Buffer, params: EceParams): Buffer;
  };
  export default ece;
}
