import type { TidingsError } from '@tidings/core';

/**
 * What a person can do about a refusal of the admin API that a dashboard form may meet. A banner
 * says this rather than the problem's code: the code is for programs, which read it from the
 * admin API's own answer, while a person needs the next step.
 */
const NEXT_STEP: Partial<Record<TidingsError['code'], string>> = {
  EMAIL_NOT_VERIFIED: 'Verify your email address with the code sent to it, then create the project.',
  PROJECT_LIMIT_REACHED: 'Delete a project you no longer use, or ask an operator to raise the limit.',
  KEY_LIMIT_REACHED: 'Revoke a key you no longer use, then create the new one.',
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 'Delete an endpoint you no longer use, then add the new one.',
  PROJECT_SUSPENDED: 'Ask an operator to resume the project.',
  VALIDATION_FAILED: 'Check the fields marked below, then submit again.',
  RATE_LIMITED: 'Wait a minute, then try again.',
};

/** The step a form's banner ends with when the form's own checks refused it. */
export const CHECK_THE_FIELDS = NEXT_STEP.VALIDATION_FAILED!;

/** A refusal as a form's banner says it: what happened, as a sentence, then what to do. */
export function refusalMessage(error: TidingsError): string {
  // The email check's own words already say what to do.
  if (error.code === 'EMAIL_NOT_VERIFIED') return NEXT_STEP.EMAIL_NOT_VERIFIED!;
  const said = error.message.charAt(0).toUpperCase() + error.message.slice(1);
  const sentence = /[.!?]$/.test(said) ? said : `${said}.`;
  const next = NEXT_STEP[error.code];
  return next ? `${sentence} ${next}` : sentence;
}
