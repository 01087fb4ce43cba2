import type { StoredSecret, StoredSecretCursor, StoredSecretStore } from '../../ports/store/stored-secrets.js';
import type { OpenedSecret, SecretPlace, SecretSealer } from './sealer.js';

/** Rows read per page when every stored secret is gone through. */
export const STORED_SECRETS_BATCH = 100;

/** The place a stored secret is sealed for. */
export function placeOf(secret: StoredSecret): SecretPlace {
  return { table: secret.table, id: secret.id, projectId: secret.projectId };
}

/** A stored secret and what opening it found. */
export interface SurveyedSecret {
  secret: StoredSecret;
  opened: OpenedSecret;
}

/** Goes through every stored secret, a page of rows at a time, and hands each page to `visit`. */
async function eachPage(
  store: StoredSecretStore,
  sealer: SecretSealer,
  batchSize: number,
  visit: (page: SurveyedSecret[]) => Promise<void>,
): Promise<void> {
  let after: StoredSecretCursor | null = null;
  for (;;) {
    const page = await store.listStoredSecrets({ after, limit: batchSize });
    if (page.length === 0) return;
    await visit(page.map((secret) => ({ secret, opened: sealer.open(secret.value, placeOf(secret)) })));
    const last = page[page.length - 1]!;
    after = { table: last.table, id: last.id };
  }
}

/** How the stored secrets stand against an instance's keys. */
export interface SecretsSurvey {
  total: number;
  /** Not sealed. */
  clear: number;
  /** Sealed under the key that seals now. */
  current: number;
  /** Sealed under another key held here, by key id: `secrets rotate` re-seals them. */
  older: Record<string, number>;
  /** Sealed under keys not held here, by key id. */
  unknownKeys: Record<string, number>;
  /** Sealed under a key held here but not opening there (altered, or copied from another row). */
  broken: StoredSecret[];
}

/** Reads every stored secret and says how it stands; writes nothing. */
export async function surveyStoredSecrets(
  store: StoredSecretStore,
  sealer: SecretSealer,
  batchSize = STORED_SECRETS_BATCH,
): Promise<SecretsSurvey> {
  const survey: SecretsSurvey = { total: 0, clear: 0, current: 0, older: {}, unknownKeys: {}, broken: [] };
  await eachPage(store, sealer, batchSize, async (page) => {
    for (const { secret, opened } of page) {
      survey.total++;
      switch (opened.kind) {
        case 'clear':
          survey.clear++;
          break;
        case 'opened':
          if (opened.keyId === sealer.sealingKeyId) survey.current++;
          else survey.older[opened.keyId] = (survey.older[opened.keyId] ?? 0) + 1;
          break;
        case 'unknown-key':
          survey.unknownKeys[opened.keyId] = (survey.unknownKeys[opened.keyId] ?? 0) + 1;
          break;
        case 'broken':
          survey.broken.push(secret);
          break;
      }
    }
  });
  return survey;
}

/** What {@link resealStoredSecrets} did. */
export interface ResealOutcome {
  /** Values written sealed under the sealing key. */
  resealed: number;
  /** Values changed by another process between the read and the write, left as that process wrote them. */
  changedMeanwhile: number;
}

/** Options of {@link resealStoredSecrets}. */
export interface ResealOptions {
  /** `clear` seals only the values stored in the clear; `not-current` also re-seals those of older keys. */
  which: 'clear' | 'not-current';
  /** Rows per page. @default 100 */
  batchSize?: number;
  /** A pause after each page, to spare a busy database. @default 0 */
  pauseMs?: number;
  /** Told after each page with the running totals. */
  onBatch?: (progress: ResealOutcome) => void;
}

/**
 * Seals under the sealing key the stored secrets `which` names, page by page, each value written
 * only if it is still what was read. Each write stands alone, so a run stopped anywhere (a crash,
 * a kill) leaves every value opening with one of the keys, and running it again carries on.
 * Values that do not open are left as they are (a survey reports them).
 */
export async function resealStoredSecrets(
  store: StoredSecretStore,
  sealer: SecretSealer,
  options: ResealOptions,
): Promise<ResealOutcome> {
  if (sealer.sealingKeyId === null) throw new TypeError('Sealing stored secrets needs a key');
  const outcome: ResealOutcome = { resealed: 0, changedMeanwhile: 0 };
  await eachPage(store, sealer, options.batchSize ?? STORED_SECRETS_BATCH, async (page) => {
    for (const { secret, opened } of page) {
      const due =
        opened.kind === 'clear' ||
        (options.which === 'not-current' && opened.kind === 'opened' && opened.keyId !== sealer.sealingKeyId);
      if (!due) continue;
      const replaced = await store.replaceStoredSecret({
        table: secret.table,
        id: secret.id,
        column: secret.column,
        expected: secret.value,
        value: sealer.seal(opened.value, placeOf(secret)),
      });
      if (replaced) outcome.resealed++;
      else outcome.changedMeanwhile++;
    }
    options.onBatch?.({ ...outcome });
    if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  });
  return outcome;
}

/** Where a stored secret is, in words for an operator (never its value). */
export function describeStoredSecret(secret: StoredSecret): string {
  return secret.table === 'vapid_keys' ? 'the VAPID private key' : `${secret.column} of webhook endpoint ${secret.id}`;
}

/**
 * The one line that refuses a start, or null when every stored secret opens: sealed values
 * without a key, values of keys not held, values that do not open. `keySource` names where keys
 * are set (an option, an environment variable).
 */
export function secretsRefusal(survey: SecretsSurvey, sealer: SecretSealer, keySource: string): string | null {
  const unknown = Object.keys(survey.unknownKeys);
  if (unknown.length > 0) {
    const count = Object.values(survey.unknownKeys).reduce((sum, n) => sum + n, 0);
    if (sealer.sealingKeyId === null) {
      return `${count} stored secret${count === 1 ? ' is' : 's are'} sealed (key ${unknown.join(', ')}) but no secrets key is set: set ${keySource}`;
    }
    return `${count} stored secret${count === 1 ? ' is' : 's are'} sealed under key ${unknown.join(', ')}, which ${keySource} does not hold (it holds ${sealer.keyIds.join(', ')}): add that key`;
  }
  const [first] = survey.broken;
  if (first) {
    const count = survey.broken.length;
    return `${count} stored secret${count === 1 ? ' does' : 's do'} not open (first: ${describeStoredSecret(first)}): altered, or copied from another row; roll the endpoint's secret or rotate the VAPID key`;
  }
  return null;
}

/** What {@link prepareStoredSecrets} found. */
export type PreparedSecrets =
  /** The instance may start; `sealedNow` clear values were sealed; `unsealed` when no key is set. */
  | { kind: 'ready'; sealedNow: number; unsealed: boolean; survey: SecretsSurvey }
  /** The instance must not start: `message` is the one line that says why. Nothing was written. */
  | { kind: 'refused'; message: string };

/**
 * The check before an instance starts: every stored secret must open with the keys given (else
 * it is refused before anything is written), and with a key set the values still in the clear
 * are sealed.
 */
export async function prepareStoredSecrets(
  store: StoredSecretStore,
  sealer: SecretSealer,
  keySource: string,
): Promise<PreparedSecrets> {
  const survey = await surveyStoredSecrets(store, sealer);
  const refusal = secretsRefusal(survey, sealer, keySource);
  if (refusal !== null) return { kind: 'refused', message: refusal };
  if (sealer.sealingKeyId === null || survey.clear === 0) {
    return { kind: 'ready', sealedNow: 0, unsealed: sealer.sealingKeyId === null, survey };
  }
  const { resealed } = await resealStoredSecrets(store, sealer, { which: 'clear' });
  return { kind: 'ready', sealedNow: resealed, unsealed: false, survey };
}
