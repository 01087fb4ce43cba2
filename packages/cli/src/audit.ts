import { userInfo } from 'node:os';
import type { AuditLogStore } from '@tidings/dashboard';
import type { CommandContext } from './admin-commands.js';
import { type ParsedCommand, UsageError } from './args.js';

/** The flag every command that changes something takes: who runs it, for the audit log. */
export const actorOption = { actor: { type: 'string' } } as const;

/** The longest `--actor`, in characters. */
const MAX_ACTOR_LENGTH = 254;

/** The operating system's user running the CLI; its environment's when the system has no name for it. */
function osUser(): string {
  try {
    const name = userInfo().username;
    if (name) return name;
  } catch {
    // No entry for this uid (a container): the environment may still say.
  }
  return process.env.USER || process.env.USERNAME || 'unknown';
}

/** Who runs a command: `--actor NAME`, else the operating system's user. */
export function actorOf(parsed: ParsedCommand, command: string): string {
  const value = parsed.values.actor;
  if (value === undefined) return osUser();
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > MAX_ACTOR_LENGTH) {
    throw new UsageError(`--actor must be 1 to ${MAX_ACTOR_LENGTH} characters`, command);
  }
  return value.trim();
}

/**
 * The audit log as the CLI writes it: the entry the audit policy words for the operation, written
 * by the dashboard's own writer (`recordAudit`) with the actor named and the source `cli`. The
 * dashboard's module loads only when a change is recorded.
 */
export function cliAuditContext(store: AuditLogStore, actor: string, env: NodeJS.ProcessEnv): CommandContext {
  return {
    actor,
    env,
    async audit(operation, subject, reason) {
      const { auditEntryOf, recordAudit } = await import('@tidings/dashboard');
      await recordAudit(store, Date.now(), { source: 'cli', name: actor }, auditEntryOf(operation, subject, reason));
    },
  };
}
