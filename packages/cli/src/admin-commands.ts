import {
  type AdminApi,
  MAX_INBOX_RETENTION_DAYS,
  MAX_SUSPENSION_REASON_LENGTH,
  TidingsError,
  type WebhookEndpointObject,
  type WebhookMessageObject,
} from '@tidings/core';
import type {
  AuditSubjects,
  DashboardAccountStore,
  DashboardStore,
  EmailCodeStore,
  SessionStore,
} from '@tidings/dashboard';
import {
  expectPositionals,
  integerFlag,
  type OptionsConfig,
  type ParsedCommand,
  requiredString,
  UsageError,
} from './args.js';
import {
  accountLine,
  auditEventObject,
  auditLine,
  createdKeyText,
  keyLine,
  listText,
  projectLine,
  usageText,
} from './format.js';

/** What a command produced: the object for `--json`, and lines for a terminal. */
export interface CommandOutput {
  result: unknown;
  text: string;
}

/** What a command that changes something is given besides the admin API. */
export interface CommandContext {
  /** Who runs it: `--actor`, else the operating system's user. */
  actor: string;
  /** Records a change in the audit log, as {@link actor} at the CLI, in the words of the audit policy. */
  audit<K extends keyof AuditSubjects>(operation: K, subject: AuditSubjects[K], reason?: string | null): Promise<void>;
  /** The environment the command runs in (`TIDINGS_VAPID_SUBJECT`, …). */
  env: NodeJS.ProcessEnv;
}

/** One operator command over the admin API. */
export interface AdminCommand {
  /** The words that name it, e.g. `key create`. */
  name: string;
  /** Its arguments, as the usage shows them. */
  synopsis: string;
  summary: string;
  options: OptionsConfig;
  /** It changes something: it takes `--actor` and records each change in the audit log. */
  changes?: true;
  /** `dashboardStore`: the dashboard's port, for the commands on sign-in (operator flag, codes) and the audit log. */
  run(
    admin: AdminApi,
    parsed: ParsedCommand,
    dashboardStore: DashboardStore,
    context: CommandContext,
  ): Promise<CommandOutput>;
}

/** Most entries `tidings audit` prints. */
const MAX_AUDIT_LIMIT = 1000;

const modes = ['live', 'test'] as const;

/**
 * The switch `tidings serve` takes for `http:` webhook endpoints, under the same name for the
 * commands that create or change one (`$TIDINGS_WEBHOOKS_ALLOW_HTTP=1` stays its alias).
 */
export const allowHttpOption = { 'webhooks-allow-http': { type: 'boolean' } } as const;

/** Every admin command, in the order the help lists them. */
export const adminCommands: AdminCommand[] = [
  {
    name: 'account create',
    synopsis: '--email EMAIL [--verified] [--operator]',
    summary: "Create an account (unverified unless --verified; --operator: may run the dashboard's operator page)",
    options: { email: { type: 'string' }, verified: { type: 'boolean' }, operator: { type: 'boolean' } },
    changes: true,
    async run(admin, parsed, store, context) {
      expectPositionals(parsed, [], this.name);
      const email = normaliseEmail(requiredString(parsed, 'email', this.name));
      if (await store.findAccountByEmail(email)) {
        throw new TidingsError('VALIDATION_FAILED', `An account with the email ${email} exists`, {
          errors: [{ path: 'email', message: 'is taken' }],
        });
      }
      const account = await admin.createAccount({ email, verified: parsed.values.verified === true });
      const operator = parsed.values.operator === true;
      if (operator) await store.setAccountOperator({ id: account.id, operator: true });
      const state = account.verified ? 'verified' : 'unverified';
      await context.audit('createAccount', { account, operator });
      return {
        result: { ...account, operator },
        text: `created account ${account.id} (${account.email}, ${state}${operator ? ', operator' : ''})`,
      };
    },
  },
  {
    name: 'account verify',
    synopsis: 'ACCOUNT_ID | --email EMAIL',
    summary: "Mark an account's email as verified (for installs without mail)",
    options: { email: { type: 'string' } },
    changes: true,
    async run(admin, parsed, store, context) {
      const email = parsed.values.email;
      let accountId: string;
      if (typeof email === 'string') {
        expectPositionals(parsed, [], this.name);
        accountId = (await accountByEmail(store, email)).id;
      } else {
        accountId = expectPositionals(parsed, ['ACCOUNT_ID'], this.name)[0]!;
      }
      const before = await admin.getAccount(accountId);
      const account = await admin.verifyAccount(accountId);
      if (!before.verified) {
        await context.audit('verifyAccount', account);
      }
      return { result: account, text: `verified account ${account.id} (${account.email})` };
    },
  },
  {
    name: 'account operator',
    synopsis: '--email EMAIL [--revoke]',
    summary: 'Make an account an operator of the dashboard (--revoke: no longer)',
    options: { email: { type: 'string' }, revoke: { type: 'boolean' } },
    changes: true,
    async run(_admin, parsed, store, context) {
      expectPositionals(parsed, [], this.name);
      const email = normaliseEmail(requiredString(parsed, 'email', this.name));
      const found = await store.findAccountByEmail(email);
      if (!found) throw new TidingsError('NOT_FOUND', `No account with the email ${email}`);
      const { account } = found;
      const operator = parsed.values.revoke !== true;
      await store.setAccountOperator({ id: account.id, operator });
      if (found.operator !== operator) {
        await context.audit('setAccountOperator', { account, operator });
      }
      return {
        result: { object: 'account', id: account.id, email: account.email, operator },
        text: `${account.email} is ${operator ? 'now an operator' : 'no longer an operator'}`,
      };
    },
  },
  {
    name: 'account sign-in-code',
    synopsis: '--email EMAIL [--minutes 15]',
    summary: 'Print a one-time code to sign in to the dashboard as this account',
    options: { email: { type: 'string' }, minutes: { type: 'string' } },
    changes: true,
    async run(_admin, parsed, store, context) {
      expectPositionals(parsed, [], this.name);
      const account = await accountByEmail(store, requiredString(parsed, 'email', this.name));
      const minutes = integerFlag(parsed, 'minutes', this.name, { min: 1, max: 1440 }) ?? 15;
      const code = await signInCode(store, account.email, minutes);
      await context.audit('issueSignInCode', { account, minutes });
      return {
        result: { object: 'sign_in_code', email: account.email, code, expires_in_minutes: minutes },
        text: `sign-in code for ${account.email}: ${code} (good for ${minutes} minutes, once; enter it at /dashboard/login/code)`,
      };
    },
  },
  {
    name: 'account list',
    synopsis: '',
    summary: 'List accounts',
    options: {},
    async run(admin, parsed) {
      expectPositionals(parsed, [], this.name);
      const accounts = await admin.listAccounts();
      return { result: accounts, text: listText(accounts, accountLine, 'no accounts') };
    },
  },
  {
    name: 'project create',
    synopsis: '--account ACCOUNT_ID --name NAME',
    summary: 'Create a project (the account must be verified)',
    options: { account: { type: 'string' }, name: { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      expectPositionals(parsed, [], this.name);
      const project = await admin.createProject({
        accountId: requiredString(parsed, 'account', this.name),
        name: requiredString(parsed, 'name', this.name),
      });
      await context.audit('createProject', project);
      return { result: project, text: `created project ${project.id} "${project.name}" in ${project.account_id}` };
    },
  },
  {
    name: 'project suspend',
    synopsis: 'PROJECT_ID [--reason TEXT]',
    summary: `Suspend a project: its requests get 403 PROJECT_SUSPENDED; its owner sees the reason (at most ${MAX_SUSPENSION_REASON_LENGTH} characters)`,
    options: { reason: { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      const [projectId] = expectPositionals(parsed, ['PROJECT_ID'], this.name);
      return changeSuspension(admin, 'suspend', projectId!, parsed, context);
    },
  },
  {
    name: 'project resume',
    synopsis: 'PROJECT_ID [--reason TEXT]',
    summary: 'Resume a suspended project (the reason goes to the audit log)',
    options: { reason: { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      const [projectId] = expectPositionals(parsed, ['PROJECT_ID'], this.name);
      return changeSuspension(admin, 'resume', projectId!, parsed, context);
    },
  },
  {
    name: 'project inbox-retention',
    synopsis: 'PROJECT_ID [--days N]',
    summary: `Show how many days a project's inbox items are kept, or set it with --days (1 to ${MAX_INBOX_RETENTION_DAYS})`,
    options: { days: { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      const [projectId] = expectPositionals(parsed, ['PROJECT_ID'], this.name);
      const days = integerFlag(parsed, 'days', this.name, { min: 1, max: MAX_INBOX_RETENTION_DAYS });
      const before = await admin.getInboxRetention(projectId!);
      const after = days === undefined ? before : await admin.setInboxRetention(projectId!, days);
      const result = { object: 'inbox_retention', project_id: projectId, days: after };
      if (days === undefined) return { result, text: `inbox items of ${projectId} are kept ${after} days` };
      // Setting what was already set changes nothing and records nothing.
      if (after === before) return { result, text: `inbox items of ${projectId} were already kept ${after} days` };
      await context.audit('setInboxRetention', { projectId: projectId!, days: after });
      return { result, text: `inbox items of ${projectId} are now kept ${after} days (were ${before})` };
    },
  },
  {
    name: 'project delete',
    synopsis: 'PROJECT_ID --confirm NAME',
    summary:
      "Delete a project and all it holds, at once and for good: its keys get 401 from then on (--confirm repeats the project's name)",
    options: { confirm: { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      const [projectId] = expectPositionals(parsed, ['PROJECT_ID'], this.name);
      const confirm = requiredString(parsed, 'confirm', this.name);
      const project = await admin.getProject(projectId!);
      if (confirm !== project.name) {
        throw new TidingsError('VALIDATION_FAILED', `--confirm must repeat the project's name, "${project.name}"`, {
          errors: [{ path: 'confirm', message: "must repeat the project's name" }],
        });
      }
      const deleted = await admin.deleteProject(project.id);
      await context.audit('deleteProject', deleted);
      return { result: deleted, text: `deleted project ${deleted.id} "${deleted.name}" and all it held` };
    },
  },
  {
    name: 'project list',
    synopsis: '--account ACCOUNT_ID',
    summary: 'List the projects of an account',
    options: { account: { type: 'string' } },
    async run(admin, parsed) {
      expectPositionals(parsed, [], this.name);
      const projects = await admin.listProjects(requiredString(parsed, 'account', this.name));
      return { result: projects, text: listText(projects, projectLine, 'no projects') };
    },
  },
  {
    name: 'key create',
    synopsis: '--project PROJECT_ID --mode live|test [--name NAME]',
    summary: 'Create an API key; the full key is printed this once only',
    options: { project: { type: 'string' }, mode: { type: 'string' }, name: { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      expectPositionals(parsed, [], this.name);
      const mode = requiredString(parsed, 'mode', this.name);
      if (!modes.includes(mode as (typeof modes)[number]))
        throw new UsageError('--mode must be live or test', this.name);
      const name = parsed.values.name;
      const key = await admin.createKey({
        projectId: requiredString(parsed, 'project', this.name),
        mode: mode as (typeof modes)[number],
        ...(typeof name === 'string' ? { name } : {}),
      });
      await context.audit('createKey', key);
      return { result: key, text: createdKeyText(key) };
    },
  },
  {
    name: 'key list',
    synopsis: '--project PROJECT_ID',
    summary: 'List the keys of a project (prefixes only)',
    options: { project: { type: 'string' } },
    async run(admin, parsed) {
      expectPositionals(parsed, [], this.name);
      const keys = await admin.listKeys(requiredString(parsed, 'project', this.name));
      return { result: keys, text: listText(keys, keyLine, 'no keys') };
    },
  },
  {
    name: 'key revoke',
    synopsis: 'KEY_ID',
    summary: 'Revoke a key, at once and for good',
    options: {},
    changes: true,
    async run(admin, parsed, _store, context) {
      const [keyId] = expectPositionals(parsed, ['KEY_ID'], this.name);
      const before = await admin.getKey(keyId!);
      const key = await admin.revokeKey(keyId!);
      if (before.status === 'active') {
        await context.audit('revokeKey', key);
      }
      return { result: key, text: `revoked api_key ${key.id} (${key.mode}, ${key.prefix}…)` };
    },
  },
  {
    name: 'webhook create',
    synopsis: '--project PROJECT_ID --url URL --events A,B [--description TEXT] [--webhooks-allow-http]',
    summary: 'Create a webhook endpoint; its signing secret is printed this once only',
    options: {
      project: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      description: { type: 'string' },
      ...allowHttpOption,
    },
    changes: true,
    async run(admin, parsed, _store, context) {
      expectPositionals(parsed, [], this.name);
      const description = parsed.values.description;
      const endpoint = await admin.createWebhookEndpoint({
        projectId: requiredString(parsed, 'project', this.name),
        url: requiredString(parsed, 'url', this.name),
        events: eventList(requiredString(parsed, 'events', this.name)),
        ...(typeof description === 'string' ? { description } : {}),
      });
      await context.audit('createWebhookEndpoint', endpoint);
      return {
        result: endpoint,
        text: `${webhookLine(endpoint)}\nsecret ${endpoint.secret}\n(shown this once only: keep it now)`,
      };
    },
  },
  {
    name: 'webhook list',
    synopsis: '--project PROJECT_ID',
    summary: 'List the webhook endpoints of a project (never their secrets)',
    options: { project: { type: 'string' } },
    async run(admin, parsed) {
      expectPositionals(parsed, [], this.name);
      const endpoints = await admin.listWebhookEndpoints(requiredString(parsed, 'project', this.name));
      return { result: endpoints, text: listText(endpoints, webhookLine, 'no webhook endpoints') };
    },
  },
  {
    name: 'webhook update',
    synopsis: 'ENDPOINT_ID [--url URL] [--events A,B] [--description TEXT] [--webhooks-allow-http]',
    summary: 'Change the URL, events or description of a webhook endpoint',
    options: {
      url: { type: 'string' },
      events: { type: 'string' },
      description: { type: 'string' },
      ...allowHttpOption,
    },
    changes: true,
    async run(admin, parsed, _store, context) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const { url, events, description } = parsed.values;
      const endpoint = await admin.updateWebhookEndpoint(id!, {
        ...(typeof url === 'string' ? { url } : {}),
        ...(typeof events === 'string' ? { events: eventList(events) } : {}),
        ...(typeof description === 'string' ? { description } : {}),
      });
      await context.audit('updateWebhookEndpoint', endpoint);
      return { result: endpoint, text: `updated ${webhookLine(endpoint)}` };
    },
  },
  {
    name: 'webhook disable',
    synopsis: 'ENDPOINT_ID',
    summary: 'Stop sending events to a webhook endpoint',
    options: {},
    changes: true,
    async run(admin, parsed, _store, context) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const endpoint = await admin.disableWebhookEndpoint(id!);
      await context.audit('disableWebhookEndpoint', endpoint);
      return { result: endpoint, text: `disabled ${webhookLine(endpoint)}` };
    },
  },
  {
    name: 'webhook enable',
    synopsis: 'ENDPOINT_ID',
    summary: 'Send events to a webhook endpoint again',
    options: {},
    changes: true,
    async run(admin, parsed, _store, context) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const endpoint = await admin.enableWebhookEndpoint(id!);
      await context.audit('enableWebhookEndpoint', endpoint);
      return { result: endpoint, text: `enabled ${webhookLine(endpoint)}` };
    },
  },
  {
    name: 'webhook delete',
    synopsis: 'ENDPOINT_ID',
    summary: 'Delete a webhook endpoint for good',
    options: {},
    changes: true,
    async run(admin, parsed, _store, context) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const endpoint = await admin.deleteWebhookEndpoint(id!);
      await context.audit('deleteWebhookEndpoint', endpoint);
      return { result: endpoint, text: `deleted ${webhookLine(endpoint)}` };
    },
  },
  {
    name: 'webhook roll-secret',
    synopsis: 'ENDPOINT_ID [--grace-hours N]',
    summary: 'Give a webhook endpoint a new secret, printed once; the old one signs too for N hours (default 24)',
    options: { 'grace-hours': { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const hours = integerFlag(parsed, 'grace-hours', this.name, { min: 0, max: 168 });
      const endpoint = await admin.rollWebhookSecret(id!, hours === undefined ? {} : { graceSeconds: hours * 3600 });
      await context.audit('rollWebhookSecret', endpoint);
      return {
        result: endpoint,
        text: `${webhookLine(endpoint)}\nsecret ${endpoint.secret}\nprevious secret valid until ${endpoint.previous_secret_expires_at}`,
      };
    },
  },
  {
    name: 'webhook messages',
    synopsis: 'ENDPOINT_ID [--status pending|delivered|failed] [--limit N]',
    summary: 'The messages of a webhook endpoint, newest first (kept 30 days)',
    options: { status: { type: 'string' }, limit: { type: 'string' } },
    async run(admin, parsed) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const status = parsed.values.status;
      const limit = integerFlag(parsed, 'limit', this.name, { min: 1, max: 100 });
      const messages = await admin.listWebhookMessages(id!, {
        ...(typeof status === 'string' ? { status: status as WebhookMessageObject['status'] } : {}),
        ...(limit === undefined ? {} : { limit }),
      });
      return { result: messages, text: listText(messages, webhookMessageLine, 'no messages') };
    },
  },
  {
    name: 'webhook resend',
    synopsis: 'MESSAGE_ID',
    summary: 'Send a webhook message again now, with the same id (delivered, failed, or waiting for a retry)',
    options: {},
    changes: true,
    async run(admin, parsed, _store, context) {
      const [id] = expectPositionals(parsed, ['MESSAGE_ID'], this.name);
      const message = await admin.resendWebhookMessage(id!);
      await context.audit('resendWebhookMessage', message);
      return { result: message, text: `resending ${webhookMessageLine(message)}` };
    },
  },
  {
    name: 'webhook replay',
    synopsis: 'ENDPOINT_ID --since ISO_TIME',
    summary: 'Send again, in order, every message of an endpoint created since the time (retrying ones at once)',
    options: { since: { type: 'string' } },
    changes: true,
    async run(admin, parsed, _store, context) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const sinceText = requiredString(parsed, 'since', this.name);
      const since = Date.parse(sinceText);
      if (Number.isNaN(since)) throw new UsageError('--since must be an ISO 8601 time', this.name);
      const endpoint = await admin.getWebhookEndpoint(id!);
      const replayed = await admin.replayWebhookMessages(id!, { since });
      await context.audit('replayWebhookMessages', { endpoint, count: replayed.count, since });
      return { result: replayed, text: `replaying ${replayed.count} messages of ${endpoint.id}` };
    },
  },
  {
    name: 'webhook test',
    synopsis: 'ENDPOINT_ID [--type EVENT_TYPE]',
    summary:
      'Send a webhook.test event to an endpoint now, whatever the event types it wants (--type: a sample of that event type)',
    options: { type: { type: 'string' } },
    async run(admin, parsed) {
      const [id] = expectPositionals(parsed, ['ENDPOINT_ID'], this.name);
      const type = parsed.values.type;
      const message = await admin.sendTestWebhookEvent(id!, typeof type === 'string' ? { type } : {});
      return { result: message, text: `sending ${webhookMessageLine(message)}` };
    },
  },
  {
    name: 'vapid show',
    synopsis: '',
    summary: 'The Web Push VAPID public key of this database (made on first use), when it was made, and the subject',
    options: {},
    async run(admin, parsed, _store, context) {
      expectPositionals(parsed, [], this.name);
      const key = await admin.getVapidKey();
      const subject = context.env.TIDINGS_VAPID_SUBJECT || null;
      return {
        result: { ...key, subject },
        text: [
          `public key ${key.public_key}`,
          `created ${key.created_at}`,
          subject === null
            ? 'subject: given to tidings serve (--vapid-subject or $TIDINGS_VAPID_SUBJECT); Web Push is off without one'
            : `subject ${subject} (from $TIDINGS_VAPID_SUBJECT)`,
        ].join('\n'),
      };
    },
  },
  {
    name: 'vapid rotate',
    synopsis: '',
    summary:
      'Replace the VAPID key pair: every push subscription made with the old key stops working until its browser subscribes again',
    options: {},
    changes: true,
    async run(admin, parsed, _store, context) {
      expectPositionals(parsed, [], this.name);
      const key = await admin.rotateVapidKey();
      await context.audit('rotateVapidKey', key);
      return {
        result: key,
        text: [
          `public key ${key.public_key}`,
          `created ${key.created_at}`,
          'Browsers subscribed with the old key get no Web Push until they subscribe again (the browser SDK',
          'does on its next connect, within a minute of every server reading the new key).',
        ].join('\n'),
      };
    },
  },
  {
    name: 'usage',
    synopsis: '--project PROJECT_ID [--days N]',
    summary: 'Live notifications and attempts per UTC day (default: 30 days)',
    options: { project: { type: 'string' }, days: { type: 'string' } },
    async run(admin, parsed) {
      expectPositionals(parsed, [], this.name);
      const projectId = requiredString(parsed, 'project', this.name);
      const days = integerFlag(parsed, 'days', this.name, { min: 1, max: 366 });
      const usage = await admin.getUsage(projectId, days === undefined ? {} : { days });
      return { result: usage, text: usageText(usage) };
    },
  },
  {
    name: 'audit',
    synopsis: `[--project PROJECT_ID] [--actor NAME] [--limit 50]`,
    summary: `The audit log, newest first: changes made in the dashboard and with this CLI (--limit 1 to ${MAX_AUDIT_LIMIT})`,
    options: { project: { type: 'string' }, actor: { type: 'string' }, limit: { type: 'string' } },
    async run(admin, parsed, store) {
      expectPositionals(parsed, [], this.name);
      const project = optionalString(parsed, 'project', this.name);
      const actor = optionalString(parsed, 'actor', this.name);
      const limit = integerFlag(parsed, 'limit', this.name, { min: 1, max: MAX_AUDIT_LIMIT }) ?? 50;
      if (project !== undefined) await admin.getProject(project);
      const events = await store.listAuditEvents({
        limit,
        ...(project === undefined ? {} : { projectId: project }),
        ...(actor === undefined ? {} : { actor }),
      });
      return { result: events.map(auditEventObject), text: listText(events, auditLine, 'no audit entries') };
    },
  },
];

/** A flag's value when given; given empty is a usage error. */
function optionalString(parsed: ParsedCommand, name: string, command: string): string | undefined {
  const value = parsed.values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} must not be empty`, command);
  return value;
}

/** `a,b` as a list of event types. */
function eventList(value: string): string[] {
  return value
    .split(',')
    .map((event) => event.trim())
    .filter((event) => event.length > 0);
}

/** One endpoint on one line: never its secret. */
function webhookLine(endpoint: WebhookEndpointObject): string {
  return `webhook_endpoint ${endpoint.id} ${endpoint.status} ${endpoint.url} [${endpoint.events.join(',')}]`;
}

function webhookMessageLine(message: WebhookMessageObject): string {
  return `webhook_message ${message.id} ${message.status} ${message.event_type} attempts=${message.attempts} created=${message.created_at}`;
}

/** Suspends or resumes a project with `--reason`, and records the change (none when it was so already). */
async function changeSuspension(
  admin: AdminApi,
  action: 'suspend' | 'resume',
  projectId: string,
  parsed: ParsedCommand,
  context: CommandContext,
): Promise<CommandOutput> {
  const reason = typeof parsed.values.reason === 'string' ? parsed.values.reason : null;
  const before = await admin.getProject(projectId);
  const change = { reason, actor: context.actor };
  const project =
    action === 'suspend' ? await admin.suspendProject(projectId, change) : await admin.resumeProject(projectId, change);
  const past = action === 'suspend' ? 'suspended' : 'resumed';
  if (before.suspended === (action === 'suspend')) {
    return {
      result: project,
      text: `project ${project.id} was ${action === 'suspend' ? 'suspended' : 'not suspended'}`,
    };
  }
  await context.audit(action === 'suspend' ? 'suspendProject' : 'resumeProject', project, reason?.trim() ?? null);
  return { result: project, text: `${past} project ${project.id}` };
}

/** Emails as the dashboard stores them: trimmed and lower-cased. */
function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The account with this email, or NOT_FOUND. */
async function accountByEmail(store: DashboardAccountStore, email: string) {
  const found = await store.findAccountByEmail(normaliseEmail(email));
  if (!found) throw new TidingsError('NOT_FOUND', `No account with the email ${normaliseEmail(email)}`);
  return found.account;
}

/** Issues a one-time dashboard sign-in code for an address. */
export async function signInCode(
  store: DashboardAccountStore & EmailCodeStore & SessionStore,
  email: string,
  minutes: number,
): Promise<string> {
  const { createAccountService } = await import('@tidings/dashboard');
  const accounts = createAccountService({
    store,
    // A sign-in code verifies nothing.
    admin: { verifyAccount: () => Promise.reject(new Error('a sign-in code verifies no account')) },
    clock: { now: () => Date.now() },
    mailer: { send: async () => {} },
  });
  return accounts.issueSignInCode(email, minutes * 60_000);
}
