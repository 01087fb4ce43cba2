import {
  createSecretSealer,
  generateSecretKey,
  parseSecretKeys,
  resealStoredSecrets,
  type SecretSealer,
  type SecretsSurvey,
  secretsRefusal,
  surveyStoredSecrets,
} from '@tidings/core';
import { databasePath, expectPositionals, integerFlag, type OptionsConfig, parseCommand, UsageError } from './args.js';
import { usage } from './help.js';
import { type CliIo, reportFailure, reportSuccess } from './io.js';
import { openStore, storeTarget } from './open-store.js';
import { loadSecretKeys, OperatorRefusal, SECRET_KEY_SOURCES } from './secret-keys.js';

/** The secrets commands' usage lines. */
export const secretsUsage = {
  'secrets generate-key': {
    synopsis: '',
    summary: 'Print a new secrets key (the base64 of 32 random bytes)',
    details: [
      'Keep it out of the database and its backups, and give it to every process on the database:',
      'TIDINGS_SECRETS_KEY=KEY, or a file named by TIDINGS_SECRETS_KEY_FILE or by the config',
      'file\'s "secretsKeyFile". With it, webhook signing secrets and the VAPID private key are',
      'sealed in the store (docs/deploy.md#secrets-at-rest).',
    ],
  },
  'secrets status': {
    synopsis: '',
    summary: 'Say how the stored secrets are sealed, and whether every one opens with the keys set',
    details: [],
  },
  'secrets rotate': {
    synopsis: '[--batch-size 100] [--pause-ms 0]',
    summary: 'Seal every stored secret under the first key set (the new one); run again after a stop',
    details: [
      'Set the new key first and the old one after it (TIDINGS_SECRETS_KEY=NEW,OLD, or one per line',
      'in the key file) on every process, then run this: each secret is re-sealed on its own, so',
      'a stop anywhere leaves every secret opening with one of the two keys; running it again goes',
      'on. Once it says so, remove the old key.',
      '--batch-size N  rows read and re-sealed at a time (default 100)',
      '--pause-ms N    a pause after each batch, to spare a busy database (default 0)',
    ],
  },
} as const;

/** The names of the secrets commands. */
export type SecretsCommandName = keyof typeof secretsUsage;

function describeSurvey(survey: SecretsSurvey, sealer: SecretSealer): string {
  const parts = [`${survey.total} stored secret${survey.total === 1 ? '' : 's'}`];
  if (sealer.sealingKeyId !== null) parts.push(`${survey.current} sealed under key ${sealer.sealingKeyId}`);
  for (const [keyId, count] of Object.entries(survey.older)) parts.push(`${count} under the older key ${keyId}`);
  for (const [keyId, count] of Object.entries(survey.unknownKeys)) parts.push(`${count} under key ${keyId}, not set`);
  if (survey.clear > 0) parts.push(`${survey.clear} unsealed`);
  if (survey.broken.length > 0) parts.push(`${survey.broken.length} that do not open`);
  return parts.join(', ');
}

/** The keys set, besides the sealing one, that nothing stored needs any more. */
function unneededKeys(survey: SecretsSurvey, sealer: SecretSealer): string[] {
  return sealer.keyIds.slice(1).filter((keyId) => (survey.older[keyId] ?? 0) === 0);
}

/** `tidings secrets generate-key | status | rotate`. */
export async function secretsCommand(name: SecretsCommandName, args: string[], io: CliIo): Promise<number> {
  const options: OptionsConfig =
    name === 'secrets rotate' ? { 'batch-size': { type: 'string' }, 'pause-ms': { type: 'string' } } : {};
  const parsed = parseCommand(name, args, options);
  if (parsed.values.help === true) {
    io.stdout(usage(name));
    return 0;
  }
  expectPositionals(parsed, [], name);
  const json = parsed.values.json === true;
  if (name === 'secrets generate-key') {
    const key = generateSecretKey();
    return reportSuccess(io, { result: { object: 'secrets_key', key }, text: key }, json);
  }
  const batchSize = integerFlag(parsed, 'batch-size', name, { min: 1, max: 10_000 }) ?? 100;
  const pauseMs = integerFlag(parsed, 'pause-ms', name, { min: 0, max: 60_000 }) ?? 0;
  try {
    const { keys, source } = await loadSecretKeys(io.env);
    const sealer = createSecretSealer(parseSecretKeys(keys, source));
    const store = await openStore(storeTarget(databasePath(parsed, io.env)), 'admin');
    try {
      const before = await surveyStoredSecrets(store, sealer, batchSize);
      if (name === 'secrets status') {
        const refusal = secretsRefusal(before, sealer, source);
        const text = [
          describeSurvey(before, sealer),
          ...(sealer.sealingKeyId === null ? ['no secrets key is set: stored secrets are not sealed'] : []),
          ...(refusal === null ? [] : [`a server would not start: ${refusal}`]),
        ].join('\n');
        return reportSuccess(
          io,
          { result: { object: 'secrets_status', keys: sealer.keyIds, ...surveyJson(before) }, text },
          json,
        );
      }
      if (sealer.sealingKeyId === null) {
        throw new OperatorRefusal(`no secrets key is set: set ${SECRET_KEY_SOURCES}, the new key first`);
      }
      // Nothing is written while a secret does not open: the keys set are not the ones it needs.
      const refusal = secretsRefusal(before, sealer, source);
      if (refusal !== null) throw new OperatorRefusal(refusal);
      const outcome = await resealStoredSecrets(store, sealer, {
        which: 'not-current',
        batchSize,
        pauseMs,
        onBatch: json ? undefined : (progress) => io.stdout(`re-sealed ${progress.resealed}`),
      });
      const after = await surveyStoredSecrets(store, sealer, batchSize);
      const done = after.current === after.total;
      const removable = unneededKeys(after, sealer);
      const text = [
        `re-sealed ${outcome.resealed} of ${before.total} stored secrets under key ${sealer.sealingKeyId}`,
        done
          ? `every stored secret is sealed under key ${sealer.sealingKeyId}${removable.length > 0 ? `; key ${removable.join(', ')} is no longer needed: remove it` : ''}`
          : `${describeSurvey(after, sealer)}: run it again`,
      ].join('\n');
      return reportSuccess(
        io,
        {
          result: {
            object: 'secrets_rotation',
            key: sealer.sealingKeyId,
            resealed: outcome.resealed,
            done,
            removable,
            ...surveyJson(after),
          },
          text,
        },
        json,
      );
    } finally {
      await store.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return reportFailure(io, error, json);
  }
}

/** A survey as `--json` prints it: counts only, never a value. */
function surveyJson(survey: SecretsSurvey) {
  return {
    total: survey.total,
    current: survey.current,
    clear: survey.clear,
    older: survey.older,
    unknown_keys: survey.unknownKeys,
    broken: survey.broken.length,
  };
}
