import { readFile } from 'node:fs/promises';
import { parseSecretKeys, SecretKeyError } from '@tidings/core';

/**
 * A start or a command the operator must fix before it can go on, said in one plain line (a key
 * missing or wrong, a stored secret that does not open): never an internal error.
 */
export class OperatorRefusal extends Error {
  override name = 'OperatorRefusal';
}

/** The operator's secrets keys as the CLI found them. */
export interface LoadedSecretKeys {
  /** The keys' texts, the sealing one first; empty when none is set. */
  keys: string[];
  /** Where keys are set, for messages: the variable or file that gave them, or where to set them. */
  source: string;
}

/** Where keys may be set, named in the message that asks for one. */
export const SECRET_KEY_SOURCES =
  'TIDINGS_SECRETS_KEY, TIDINGS_SECRETS_KEY_FILE or the config file\'s "secretsKeyFile"';

/**
 * The secrets keys: `TIDINGS_SECRETS_KEY` (keys separated by commas), else the file that
 * `TIDINGS_SECRETS_KEY_FILE` or the config file's `secretsKeyFile` names (one key per line); the
 * first key seals, each one opens. Two sources at once are refused, as are keys in a wrong form.
 */
export async function loadSecretKeys(
  env: NodeJS.ProcessEnv,
  configFile: string | null = null,
): Promise<LoadedSecretKeys> {
  const given = [
    env.TIDINGS_SECRETS_KEY ? 'TIDINGS_SECRETS_KEY' : null,
    env.TIDINGS_SECRETS_KEY_FILE ? 'TIDINGS_SECRETS_KEY_FILE' : null,
    configFile === null ? null : 'the config file\'s "secretsKeyFile"',
  ].filter((source): source is string => source !== null);
  if (given.length > 1)
    throw new OperatorRefusal(`secrets keys are set in ${given.join(' and ')}: set them in one place`);
  try {
    if (env.TIDINGS_SECRETS_KEY) {
      const keys = env.TIDINGS_SECRETS_KEY.split(',');
      parseSecretKeys(keys, 'TIDINGS_SECRETS_KEY');
      return { keys, source: 'TIDINGS_SECRETS_KEY' };
    }
    const file = env.TIDINGS_SECRETS_KEY_FILE || configFile;
    if (!file) return { keys: [], source: SECRET_KEY_SOURCES };
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new OperatorRefusal(
        `the secrets key file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    const keys = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
    if (keys.length === 0) throw new OperatorRefusal(`the secrets key file ${file} holds no key`);
    parseSecretKeys(keys, `the secrets key file ${file}`);
    return { keys, source: `the secrets key file ${file}` };
  } catch (error) {
    if (error instanceof SecretKeyError) throw new OperatorRefusal(error.message);
    throw error;
  }
}
