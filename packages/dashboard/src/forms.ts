import { MAX_SUSPENSION_REASON_LENGTH, WEBHOOK_EVENT_TYPES } from '@tidings/core';
import { z } from 'zod';
import { passwordWeakness } from './domain/password-strength.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './domain/passwords.js';
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, MAX_WEBHOOK_URL_LENGTH, tooLong } from './limits.js';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const email = z
  .string({ error: 'Enter your email address' })
  .trim()
  .toLowerCase()
  .max(254, 'That email address is too long')
  .regex(EMAIL_PATTERN, 'Enter an email address like name@example.com');
const newPassword = z
  .string({ error: 'Choose a password' })
  .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `Use at most ${MAX_PASSWORD_LENGTH} characters`);
const code = z
  .string({ error: 'Enter the 6-digit code' })
  .trim()
  .regex(/^\d{6}$/, 'Enter the 6 digits of the code');
const projectName = z
  .string({ error: 'Name the project' })
  .trim()
  .min(1, 'Name the project')
  .max(MAX_NAME_LENGTH, tooLong(MAX_NAME_LENGTH));

/** Refuses a new password that is easy to guess, its account's email included. */
function strongPassword(form: { email: string; password: string }, context: z.RefinementCtx): void {
  const weakness = passwordWeakness(form.password, [form.email]);
  if (weakness) context.addIssue({ code: 'custom', path: ['password'], message: weakness });
}

/** POST /signup. `code` is the invitation code when sign-up is by invitation. */
export const signupBodySchema = z
  .object({ email, password: newPassword, code: code.optional() })
  .superRefine(strongPassword);
/** POST /login: any password is checked; its rules apply when it is chosen. */
export const loginBodySchema = z.object({
  email,
  password: z.string({ error: 'Enter your password' }).min(1, 'Enter your password').max(MAX_PASSWORD_LENGTH),
});
/** POST /login/code. */
export const codeLoginBodySchema = z.object({ email, code });
/** POST /login/code/send: the address to mail a sign-in code to. */
export const codeRequestBodySchema = z.object({ email });
/** POST /verify. */
export const verifyBodySchema = z.object({ code });
/** POST /signup/verify: the address travels with the code, as nobody is signed in yet. */
export const signupVerifyBodySchema = z.object({ email, code });
/** POST /signup/verify/resend. */
export const signupResendBodySchema = z.object({ email });
/** POST /reset. */
export const resetRequestBodySchema = z.object({ email });
/** POST /reset/confirm. */
export const resetConfirmBodySchema = z.object({ email, code, password: newPassword }).superRefine(strongPassword);
/** POST /projects and POST /projects/{id}/rename. */
export const projectBodySchema = z.object({ name: projectName });
/** POST /projects/{id}/inbox-retention. */
export const inboxRetentionBodySchema = z.object({
  days: z.coerce
    .number({ error: 'Enter a number of days, 1 to 365' })
    .int('Enter a whole number of days, 1 to 365')
    .min(1, 'Enter a number of days, 1 to 365')
    .max(365, 'Enter a number of days, 1 to 365'),
});
/** POST /projects/{id}/keys. */
export const keyBodySchema = z.object({
  name: z
    .string({ error: 'Name the key, e.g. “production server”' })
    .trim()
    .min(1, 'Name the key, e.g. “production server”')
    .max(MAX_NAME_LENGTH, tooLong(MAX_NAME_LENGTH)),
  mode: z.enum(['live', 'test'], { error: 'Choose live or test' }),
});
/** POST /account/password: the current password, and a new one (its strength is checked with the account's email). */
export const passwordChangeBodySchema = z.object({
  current_password: z
    .string({ error: 'Enter your current password' })
    .min(1, 'Enter your current password')
    .max(MAX_PASSWORD_LENGTH),
  password: newPassword,
});
/** POST /account/email. */
export const emailChangeBodySchema = z.object({
  email,
  current_password: z
    .string({ error: 'Enter your current password' })
    .min(1, 'Enter your current password')
    .max(MAX_PASSWORD_LENGTH),
});
/** POST /account/email/confirm. */
export const emailChangeConfirmBodySchema = z.object({ email, code });
/** POST /account/delete: the password, and the account's email typed again. */
export const accountDeleteBodySchema = z.object({
  confirm_email: z.string({ error: 'Type your email address' }).trim().toLowerCase().min(1, 'Type your email address'),
  current_password: z.string({ error: 'Enter your password' }).min(1, 'Enter your password').max(MAX_PASSWORD_LENGTH),
});
/** POST /projects/{id}/delete: the project's name, typed again (no name is longer than a name may be). */
export const projectDeleteBodySchema = z.object({
  name: z
    .string({ error: "Type the project's name" })
    .trim()
    .min(1, "Type the project's name")
    .max(MAX_NAME_LENGTH, tooLong(MAX_NAME_LENGTH)),
});
/** POST /operator/invitations. */
export const invitationBodySchema = z.object({ email });
/** POST /operator/projects/{id}/suspend and /resume: why, shown to the project's owner while suspended. */
export const suspensionBodySchema = z.object({
  reason: z
    .string({ error: 'Give a reason: the project’s owner sees it' })
    .trim()
    .min(1, 'Give a reason: the project’s owner sees it')
    .max(MAX_SUSPENSION_REASON_LENGTH, tooLong(MAX_SUSPENSION_REASON_LENGTH)),
});

/** The events an endpoint may ask for on its form: each type, or `*` for every one, now and later. */
export const WEBHOOK_FORM_EVENTS = [...WEBHOOK_EVENT_TYPES, '*'] as const;
/** POST /projects/{id}/webhooks and /projects/{id}/webhooks/{endpointId}/edit: the admin API checks the URL's scheme. */
export const webhookEndpointBodySchema = z.object({
  url: z
    .string({ error: 'Enter the URL events are sent to' })
    .trim()
    .min(1, 'Enter the URL events are sent to')
    .max(MAX_WEBHOOK_URL_LENGTH, tooLong(MAX_WEBHOOK_URL_LENGTH)),
  description: z.string().trim().max(MAX_DESCRIPTION_LENGTH, tooLong(MAX_DESCRIPTION_LENGTH)).optional(),
  events: z.preprocess(
    (value) => (typeof value === 'string' ? [value] : value),
    z
      .array(z.enum(WEBHOOK_FORM_EVENTS, { error: 'Choose among the events listed' }), {
        error: 'Choose at least one event',
      })
      .min(1, 'Choose at least one event'),
  ),
});
/** POST /projects/{id}/webhooks/{endpointId}/roll: how long the old secret still signs. */
export const webhookRollBodySchema = z.object({
  grace_hours: z.coerce
    .number({ error: 'Enter a number of hours from 0 to 168' })
    .int('Enter a whole number of hours')
    .min(0, 'Enter a number of hours from 0 to 168')
    .max(168, 'Enter a number of hours from 0 to 168'),
});
/** A `datetime-local` value (`2026-11-27T10:00`, read as UTC as every time of the dashboard is), or an ISO time. */
const LOCAL_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;
/** POST /projects/{id}/webhooks/{endpointId}/replay: the time from which messages are sent again. */
export const webhookReplayBodySchema = z.object({
  since: z
    .string({ error: 'Enter a date and time (UTC)' })
    .trim()
    .regex(LOCAL_TIME_PATTERN, 'Enter a date and time (UTC), e.g. 2026-11-27T10:00')
    .transform((value, context) => {
      const at = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
      if (Number.isNaN(at)) {
        context.addIssue({ code: 'custom', message: 'Enter a date and time (UTC), e.g. 2026-11-27T10:00' });
        return z.NEVER;
      }
      return at;
    }),
});

/** A parsed form: the data, or an error per field and the values to show again (never passwords). */
export type ParsedForm<T> =
  | { ok: true; data: T; values: Record<string, string> }
  | { ok: false; errors: Record<string, string>; values: Record<string, string> };

/** Validates a urlencoded or multipart form against a schema. */
export function parseForm<T>(schema: z.ZodType<T>, body: Record<string, unknown>): ParsedForm<T> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string' && !name.includes('password')) values[name] = value;
  }
  // Empty optional fields arrive as '': they mean absent.
  // A field sent more than once (checkboxes, with `parseBody({ all: true })`) arrives as a list.
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) values[name] = value.filter((item) => typeof item === 'string').join(',');
  }
  const input = Object.fromEntries(
    Object.entries(body)
      .map(([name, value]) => [
        name,
        Array.isArray(value) ? value.filter((item) => typeof item === 'string' && item !== '') : value,
      ])
      .filter(([, value]) => (typeof value === 'string' && value !== '') || Array.isArray(value)),
  );
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data, values };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const path = String(issue.path[0] ?? 'form');
    errors[path] ??= issue.message;
  }
  return { ok: false, errors, values };
}
