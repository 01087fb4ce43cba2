import type { Mailer } from '@tidings/core';

/** Options of {@link createSmtpMailer}. */
export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:587` or `smtps://…:465`, as nodemailer reads it. */
  url: string;
  /** The sender. @default 'Tidings <no-reply@HOST of the URL>' */
  from?: string;
}

/** A {@link Mailer} over SMTP (nodemailer, loaded on first use). */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const url = new URL(options.url);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new TypeError('the SMTP URL must be smtp:// or smtps://');
  const from = options.from ?? `Tidings <no-reply@${url.hostname}>`;
  let transport: Promise<{ sendMail(message: object): Promise<unknown> }> | undefined;
  return {
    async send(message) {
      transport ??= import('nodemailer').then((nodemailer) => nodemailer.createTransport(options.url));
      await (await transport).sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
