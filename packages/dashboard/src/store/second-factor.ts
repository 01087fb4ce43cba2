/** A passkey: a WebAuthn credential registered to an account, as a second factor. */
export interface PasskeyRecord {
  /** The credential id, base64url, unique across accounts. */
  credentialId: string;
  accountId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The authenticator's signature counter at its last use (0 for authenticators without one). */
  counter: number;
  /** How the browser reaches the authenticator (`internal`, `usb`, `hybrid`…), as it said. */
  transports: string[];
  /** The name its owner gave it. */
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** An account's second factor: its passkeys, and the recovery codes that stand in for them. */
export interface SecondFactorStore {
  /** Stores a passkey (a WebAuthn credential) of an account. */
  addPasskey(input: PasskeyRecord): Promise<void>;
  /** An account's passkeys, oldest first. */
  listPasskeys(accountId: string): Promise<PasskeyRecord[]>;
  /** The passkey with this credential id, whatever its account; null when unknown. */
  findPasskey(credentialId: string): Promise<PasskeyRecord | null>;
  /** Records a sign-in with a passkey: its new signature counter and when it was used. */
  usePasskey(input: { credentialId: string; counter: number; now: number }): Promise<void>;
  /** Removes one of an account's passkeys; false when the account has no such passkey. */
  deletePasskey(input: { accountId: string; credentialId: string }): Promise<boolean>;

  /** Replaces every recovery code of an account by these (SHA-256 hashes; none clears them). */
  replaceRecoveryCodes(input: { accountId: string; hashes: string[]; now: number }): Promise<void>;
  /** Uses up one recovery code: true when the account had it, and then never again. */
  useRecoveryCode(input: { accountId: string; hash: string }): Promise<boolean>;
  /** How many unused recovery codes an account has. */
  countRecoveryCodes(accountId: string): Promise<number>;
}
