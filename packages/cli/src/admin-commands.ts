import type { AdminApi } from '@tidings/core';
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
  run(admin: AdminApi, parsed: ParsedCommand): Promise<CommandOutput>;
}

const modes = ['live', 'test'] as const;

/** Every admin command, in the order the help lists them. */
export const adminCommands: AdminCommand[] = [
  {
    name: 'account create',
    synopsis: '--email EMAIL [--verified]',
    summary: 'Create an account (unverified unless --verified)',
    options: { email: { type: 'string' }, verified: { type: 'boolean' } },
    async run(admin, parsed) {
      expectPositionals(parsed, [], this.name);
      const account = await admin.createAccount({
        email: requiredString(parsed, 'email', this.name),
        verified: parsed.values.verified === true,
      });
      const state = account.verified ? 'verified' : 'unverified';
      return { result: account, text: `created account ${account.id} (${account.email}, ${state})` };
    },
  },
  {
    name: 'account verify',
    synopsis: 'ACCOUNT_ID',
    summary: "Mark an account's email as verified",
    options: {},
    async run(admin, parsed) {
      const [accountId] = expectPositionals(parsed, ['ACCOUNT_ID'], this.name);
      const account = await admin.verifyAccount(accountId!);
      return { result: account, text: `verified account ${account.id} (${account.email})` };
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
