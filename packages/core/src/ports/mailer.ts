/** One message to send. `code`, when present, is the one-time code the message carries. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The code in the message, so that a development mailer can print it on one line. */
  code?: string;
}

/** Sends the dashboard's mail (codes for verification, password reset, invitations). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * The mailer for installs without SMTP: one line per message on stderr, in the form
 * `[mail] to=a@example.com subject="…" code=123456`, so that whoever runs the server can read
 * the code. Nothing else of the message is printed.
 */
export function createConsoleMailer(write: (line: string) => void = (line) => console.error(line)): Mailer {
  return {
    async send(message) {
      const subject = JSON.stringify(message.subject);
      write(`[mail] to=${message.to} subject=${subject}${message.code ? ` code=${message.code}` : ''}`);
    },
  };
}

/** A mailer that keeps messages in memory: for tests. */
export interface MemoryMailer extends Mailer {
  readonly sent: MailMessage[];
  /** The code of the latest message to `to`, if any. */
  lastCode(to: string): string | undefined;
}

/** Creates a {@link MemoryMailer}. */
export function createMemoryMailer(): MemoryMailer {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      sent.push(message);
    },
    lastCode(to) {
      for (let i = sent.length - 1; i >= 0; i--) if (sent[i]!.to === to && sent[i]!.code) return sent[i]!.code;
      return undefined;
    },
  };
}
