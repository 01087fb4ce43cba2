import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonWords } from '@zxcvbn-ts/language-common';
import { dictionary as englishWords, translations } from '@zxcvbn-ts/language-en';

/**
 * The lowest strength accepted, on zxcvbn's scale of 0 to 4: 3 is "safely unguessable", a
 * password that holds against online guessing and slows an offline one. It refuses the
 * commonest passwords and their variants (`password1234`, `qwertyuiop`, `iloveyou12`), keyboard
 * walks, repeats, dates and the user's own email.
 */
export const MIN_PASSWORD_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;

/** The estimator with its dictionaries of common passwords, names and English words, built on first use. */
function strengthEstimator(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...commonWords, ...englishWords },
    graphs: adjacencyGraphs,
    translations,
  });
  return estimator;
}

/**
 * Why a new password is too easy to guess, or null when it is strong enough. `userInputs` are
 * words the password must not lean on (the account's email).
 */
export function passwordWeakness(password: string, userInputs: readonly string[] = []): string | null {
  const inputs = ['tidings', 'dashboard', ...userInputs.flatMap((input) => [input, ...input.split(/[@.+_-]/)])];
  const result = strengthEstimator().check(
    password,
    inputs.filter((input) => input.length > 0),
  );
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const why = result.feedback.warning ?? 'This password is easy to guess.';
  return `${why} Add more words, or choose a less common phrase.`;
}
