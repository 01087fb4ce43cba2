import { type AdminApi, TidingsError } from '@tidings/core';
import type { DashboardStore } from '@tidings/dashboard';
import {
  expectPositionals,
  integerFlag,
  type OptionsConfig,
  type ParsedCommand,
  requiredString,
  UsageError,
} from './args.js';
import { accountLine, createdKeyText, keyLine, listText, projectLine, usageText } from './format.js';

/** What a command produced: the object for `--json`, and lines for a terminal. */
export interface CommandOutput {
  result: unknown;
  text: string;
}

/** One operator command over the admin API. */
export interface AdminCommand {
  /** The words that name it, e.g. `key create`. */
  name: string;
  /** Its arguments, as the usage shows them. */
  synopsis: string;
  summary: string;
  options: OptionsConfig;
  /** `dashboardStore`: the dashboard's port, for the commands on sign-in (operator flag, codes). */
  run(admin: AdminApi, parsed: ParsedCommand, dashboardStore: DashboardStore): Promise<CommandOutput>;
}

const modes = ['live', 'test'] as const;

/** Every admin command, in the order the help lists them. */
export const adminCommands: AdminCommand[] = [
  {
    name: 'account create',
    synopsis: '--email EMAIL [--verified] [--operator]',
    summary: "Create an account (unverified unless --verified; --operator: may run the dashboard's operator page)",
    options: { email: { type: 'string' }, verified: { type: 'boolean' }, operator: { type: 'boolean' } },
    async run(admin, parsed, store) {
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
    async run(admin, parsed, store) {
      const email = parsed.values.email;
      if (typeof email === 'string') {
        expectPositionals(parsed, [], this.name);
        const account = await accountByEmail(store, email);
        const verified = await admin.verifyAccount(account.id);
        return { result: verified, text: `verified account ${verified.id} (${verified.email})` };
      }
      const [accountId] = expectPositionals(parsed, ['ACCOUNT_ID'], this.name);
      const account = await admin.verifyAccount(accountId!);
      return { result: account, text: `verified account ${account.id} (${account.email})` };
    },
  },
  {
    name: 'account operator',
    synopsis: '--email EMAIL [--revoke]',
    summary: 'Make an account an operator of the dashboard (--revoke: no longer)',
    options: { email: { type: 'string' }, revoke: { type: 'boolean' } },
    async run(_admin, parsed, store) {
      expectPositionals(parsed, [], this.name);
      const account = await accountByEmail(store, requiredString(parsed, 'email', this.name));
      const operator = parsed.values.revoke !== true;
      await store.setAccountOperator({ id: account.id, operator });
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
    async run(_admin, parsed, store) {
      expectPositionals(parsed, [], this.name);
      const account = await accountByEmail(store, requiredString(parsed, 'email', this.name));
      const minutes = integerFlag(parsed, 'minutes', this.name, { min: 1, max: 1440 }) ?? 15;
      const code = await signInCode(store, account.email, minutes);
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
    async run(admin, parsed) {
      expectPositionals(parsed, [], this.name);
      const project = await admin.createProject({
        accountId: requiredString(parsed, 'account', this.name),
        name: requiredString(parsed, 'name', this.name),
      });
      return { result: project, text: `created project ${project.id} "${project.name}" in ${project.account_id}` };
    },
  },
  {
    name: 'project suspend',
    synopsis: 'PROJECT_ID',
    summary: 'Suspend a project: its requests get 403 PROJECT_SUSPENDED',
    options: {},
    async run(admin, parsed) {
      const [projectId] = expectPositionals(parsed, ['PROJECT_ID'], this.name);
      const project = await admin.suspendProject(projectId!);
      return { result: project, text: `suspended project ${project.id}` };
    },
  },
  {
    name: 'project resume',
    synopsis: 'PROJECT_ID',
    summary: 'Resume a suspended project',
    options: {},
    async run(admin, parsed) {
      const [projectId] = expectPositionals(parsed, ['PROJECT_ID'], this.name);
      const project = await admin.resumeProject(projectId!);
      return { result: project, text: `resumed project ${project.id}` };
    },
  },
  {
    name: 'project delete',
    synopsis: 'PROJECT_ID --confirm NAME',
    summary:
      "Delete a project and all it holds, at once and for good: its keys get 401 from then on (--confirm repeats the project's name)",
    options: { confirm: { type: 'string' } },
    async run(admin, parsed) {
      const [projectId] = expectPositionals(parsed, ['PROJECT_ID'], this.name);
      const confirm = requiredString(parsed, 'confirm', this.name);
      const project = await admin.getProject(projectId!);
      if (confirm !== project.name) {
        throw new TidingsError('VALIDATION_FAILED', `--confirm must repeat the project's name, "${project.name}"`, {
          errors: [{ path: 'confirm', message: "must repeat the project's name" }],
        });
      }
      const deleted = await admin.deleteProject(project.id);
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
    async run(admin, parsed) {
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
    async run(admin, parsed) {
      const [keyId] = expectPositionals(parsed, ['KEY_ID'], this.name);
      const key = await admin.revokeKey(keyId!);
      return { result: key, text: `revoked api_key ${key.id} (${key.mode}, ${key.prefix}…)` };
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
];

/** Emails as the dashboard stores them: trimmed and lower-cased. */
function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The account with this email, or NOT_FOUND. */
async function accountByEmail(store: DashboardStore, email: string) {
  const found = await store.findAccountByEmail(normaliseEmail(email));
  if (!found) throw new TidingsError('NOT_FOUND', `No account with the email ${normaliseEmail(email)}`);
  return found.account;
}

/** Issues a one-time dashboard sign-in code for an address. */
export async function signInCode(store: DashboardStore, email: string, minutes: number): Promise<string> {
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
