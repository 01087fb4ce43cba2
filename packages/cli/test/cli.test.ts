import { join } from 'node:path';
import { runTidings, tidingsJson } from '@tidings/test-support/cli-process.js';
import { describe, expect, it } from 'vitest';
import { withAdmin } from '../src/admin-session.js';
import { cliDatabase } from './cli-fixtures.js';

const { paths, failingJson, verifiedAccount, project } = cliDatabase();

describe('tidings help and usage errors', () => {
  it('prints the help on stdout for --help and help, exit 0', async () => {
    for (const args of [['--help'], ['help'], ['-h']]) {
      const result = await runTidings(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('usage: tidings <command>');
      expect(result.stdout).toContain('key create --project PROJECT_ID --mode live|test [--name NAME]');
    }
    const one = await runTidings(['help', 'key']);
    expect(one.stdout).toContain('usage: tidings key revoke KEY_ID');
    expect(one.stdout).not.toContain('account create');
    const flag = await runTidings(['key', 'create', '--help']);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain('usage: tidings key create');
  });

  it.each([
    [[], 'a command is required'],
    [['frobnicate'], 'unknown command: frobnicate'],
    [['account'], 'account needs a subcommand'],
    [['account', 'delete'], 'unknown command: account delete'],
    [['account', 'list', '--bogus'], "Unknown option '--bogus'"],
    [['account', 'create'], '--email is required'],
    [['account', 'verify'], 'expected ACCOUNT_ID'],
    [['key', 'create', '--project', 'proj_x', '--mode', 'prod'], '--mode must be live or test'],
    [['usage', '--project', 'proj_x', '--days', 'many'], '--days must be a whole number'],
    [['serve', '--port', '99999'], '--port must be a whole number'],
    [['serve', '--signup', 'maybe'], '--signup must be open, invite or closed'],
  ])('refuses %j with the usage on stderr, exit 2', async (args, message) => {
    const result = await runTidings([...args, '--db', join(paths.dir, 'usage.db')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`error: ${message}`);
    expect(result.stderr).toContain('usage: tidings');
  });
});

describe('tidings account, project and key', () => {
  it('creates, lists and verifies accounts', async () => {
    const account = await tidingsJson(['account', 'create', '--email', 'ops@example.com', '--db', paths.db]);
    expect(account).toEqual({
      object: 'account',
      id: expect.stringMatching(/^acct_[0-9a-z]{26}$/),
      email: 'ops@example.com',
      verified: false,
      created_at: expect.stringMatching(/Z$/),
      operator: false,
    });
    const text = await runTidings(['account', 'verify', account.id as string, '--db', paths.db]);
    expect(text).toEqual({ code: 0, stdout: `verified account ${account.id} (ops@example.com)\n`, stderr: '' });
    const listed = await tidingsJson<{ id: string; verified: boolean }[]>(['account', 'list', '--db', paths.db]);
    expect(listed.find((a) => a.id === account.id)?.verified).toBe(true);
    const lines = await runTidings(['account', 'list', '--db', paths.db]);
    expect(lines.stdout).toMatch(new RegExp(`^${account.id}  ops@example.com  verified`, 'm'));
  });

  it('makes operators, verifies by email, prints sign-in codes, and refuses a second account per email', async () => {
    const created = await tidingsJson([
      'account',
      'create',
      '--email',
      'Root@Example.com',
      '--operator',
      '--db',
      paths.db,
    ]);
    expect(created).toMatchObject({ email: 'root@example.com', verified: false, operator: true });
    const twice = await runTidings(['account', 'create', '--email', 'root@example.com', '--db', paths.db]);
    expect(twice.code).toBe(1);
    expect(twice.stderr + twice.stdout).toContain('exists');
    const verified = await tidingsJson(['account', 'verify', '--email', 'root@example.com', '--db', paths.db]);
    expect(verified).toMatchObject({ id: created.id, verified: true });
    const demoted = await tidingsJson([
      'account',
      'operator',
      '--email',
      'root@example.com',
      '--revoke',
      '--db',
      paths.db,
    ]);
    expect(demoted).toMatchObject({ id: created.id, operator: false });
    const code = await tidingsJson(['account', 'sign-in-code', '--email', 'root@example.com', '--db', paths.db]);
    expect(code).toMatchObject({ object: 'sign_in_code', email: 'root@example.com', expires_in_minutes: 15 });
    expect(code.code).toMatch(/^\d{6}$/);
    const unknown = await runTidings(['account', 'operator', '--email', 'nobody@example.com', '--db', paths.db]);
    expect(unknown.code).toBe(1);
  });

  it('refuses a project on an unverified account: EMAIL_NOT_VERIFIED', async () => {
    const account = await tidingsJson<{ id: string }>([
      'account',
      'create',
      '--email',
      'new@example.com',
      '--db',
      paths.db,
    ]);
    const problem = await failingJson(['project', 'create', '--account', account.id, '--name', 'P']);
    expect(problem).toEqual({
      type: 'urn:tidings:problem:email-not-verified',
      title: expect.any(String),
      status: 403,
      detail: expect.stringContaining('Verify the account'),
      code: 'EMAIL_NOT_VERIFIED',
      request_id: expect.stringMatching(/^req_[0-9a-z]{26}$/),
    });
    const text = await runTidings(['project', 'create', '--account', account.id, '--name', 'P', '--db', paths.db]);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(/^error: EMAIL_NOT_VERIFIED: Verify the account/);
  });

  it('refuses an invalid email with the field that is wrong', async () => {
    const problem = await failingJson(['account', 'create', '--email', 'not-an-email']);
    expect(problem).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    const text = await runTidings(['account', 'create', '--email', 'not-an-email', '--db', paths.db]);
    expect(text.stderr).toContain('email: must be an email address');
  });

  it('holds at most 10 projects per account: PROJECT_LIMIT_REACHED', async () => {
    const accountId = await verifiedAccount('many@example.com');
    // The ten allowed ones in one admin session on the file rather than ten CLI processes: what is
    // tested is the CLI's answer to the eleventh.
    await withAdmin(paths.db, async (admin) => {
      for (let i = 1; i <= 10; i++) await admin.createProject({ accountId, name: `P${i}` });
    });
    const problem = await failingJson(['project', 'create', '--account', accountId, '--name', 'P11']);
    expect(problem).toMatchObject({ status: 409, code: 'PROJECT_LIMIT_REACHED' });
    expect(await tidingsJson<unknown[]>(['project', 'list', '--account', accountId, '--db', paths.db])).toHaveLength(
      10,
    );
  });

  it('suspends and resumes a project', async () => {
    const projectId = await project(await verifiedAccount('suspend@example.com'));
    const suspended = await tidingsJson(['project', 'suspend', projectId, '--db', paths.db]);
    expect(suspended).toMatchObject({ object: 'project', id: projectId, suspended: true });
    expect(suspended.suspended_at).toEqual(expect.any(String));
    const resumed = await runTidings(['project', 'resume', projectId, '--db', paths.db]);
    expect(resumed.stdout).toBe(`resumed project ${projectId}\n`);
    const [listed] = await tidingsJson<{ suspended: boolean }[]>([
      'project',
      'list',
      '--account',
      suspended.account_id as string,
      '--db',
      paths.db,
    ]);
    expect(listed?.suspended).toBe(false);
  });

  it('shows and sets how long a project keeps its inbox items, and audits only a change', async () => {
    const projectId = await project(await verifiedAccount('inbox@example.com'));
    expect(await tidingsJson(['project', 'inbox-retention', projectId, '--db', paths.db])).toEqual({
      object: 'inbox_retention',
      project_id: projectId,
      days: 90,
    });
    const set = await runTidings(['project', 'inbox-retention', projectId, '--days', '30', '--db', paths.db]);
    expect(set).toEqual({
      code: 0,
      stdout: `inbox items of ${projectId} are now kept 30 days (were 90)\n`,
      stderr: '',
    });
    const again = await runTidings(['project', 'inbox-retention', projectId, '--days', '30', '--db', paths.db]);
    expect(again.stdout).toBe(`inbox items of ${projectId} were already kept 30 days\n`);
    const audit = await tidingsJson<{ action: string; detail: string }[]>([
      'audit',
      '--project',
      projectId,
      '--db',
      paths.db,
    ]);
    expect(audit.filter((entry) => entry.action === 'project.inbox_retention_set')).toEqual([
      expect.objectContaining({ detail: 'inbox items kept 30 days' }),
    ]);
    const refused = await runTidings(['project', 'inbox-retention', projectId, '--days', '366', '--db', paths.db]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: --days must be a whole number from 1 to 365');
    expect(await failingJson(['project', 'inbox-retention', 'proj_nothere'])).toMatchObject({ code: 'NOT_FOUND' });
    // Nine CLI processes in a row, each opening the database: the time they take under CI's load.
  }, 60_000);

  it('deletes a project only when --confirm repeats its name', async () => {
    const accountId = await verifiedAccount('delete@example.com');
    const projectId = await project(accountId, 'Doomed');
    const wrong = await failingJson(['project', 'delete', projectId, '--confirm', 'not the name']);
    expect(wrong).toMatchObject({ code: 'VALIDATION_FAILED' });
    const missing = await runTidings(['project', 'delete', projectId, '--db', paths.db]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--confirm is required');
    expect(await tidingsJson<unknown[]>(['project', 'list', '--account', accountId, '--db', paths.db])).toHaveLength(1);
    const deleted = await runTidings(['project', 'delete', projectId, '--confirm', 'Doomed', '--db', paths.db]);
    expect(deleted.stdout).toBe(`deleted project ${projectId} "Doomed" and all it held\n`);
    expect(await tidingsJson<unknown[]>(['project', 'list', '--account', accountId, '--db', paths.db])).toEqual([]);
    const again = await failingJson(['project', 'delete', projectId, '--confirm', 'Doomed']);
    expect(again).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('shows a key once, lists prefixes only, and frees the slot of a revoked key', async () => {
    const projectId = await project(await verifiedAccount('keys@example.com'));
    const created = await runTidings([
      'key',
      'create',
      '--project',
      projectId,
      '--mode',
      'live',
      '--name',
      'ci',
      '--db',
      paths.db,
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(
      /^created api_key key_[0-9a-z]{26} \(live\)\n {2}key: sk_live_[A-Za-z0-9]{32} {2}\(shown once; store it now\)\n$/,
    );
    const second = await tidingsJson(['key', 'create', '--project', projectId, '--mode', 'test', '--db', paths.db]);
    // The other eight up to the limit in one admin session rather than eight CLI processes.
    await withAdmin(paths.db, async (admin) => {
      for (let i = 3; i <= 10; i++) await admin.createKey({ projectId, mode: i % 2 ? 'live' : 'test' });
    });
    expect(second).toMatchObject({ object: 'api_key', mode: 'test', status: 'active', project_id: projectId });
    expect(second.key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(second.prefix).toBe(String(second.key).slice(0, 12));

    const limit = await failingJson(['key', 'create', '--project', projectId, '--mode', 'live']);
    expect(limit).toMatchObject({ status: 409, code: 'KEY_LIMIT_REACHED' });

    const revoked = await tidingsJson(['key', 'revoke', second.id as string, '--db', paths.db]);
    expect(revoked).toMatchObject({ id: second.id, status: 'revoked', revoked_at: expect.any(String) });
    expect(revoked).not.toHaveProperty('key');
    await tidingsJson(['key', 'create', '--project', projectId, '--mode', 'test', '--db', paths.db]);

    const listed = await tidingsJson<Record<string, unknown>[]>([
      'key',
      'list',
      '--project',
      projectId,
      '--db',
      paths.db,
    ]);
    expect(listed).toHaveLength(11);
    expect(listed.filter((key) => key.status === 'active')).toHaveLength(10);
    for (const key of listed) expect(key).not.toHaveProperty('key');
    const lines = await runTidings(['key', 'list', '--project', projectId, '--db', paths.db]);
    expect(lines.stdout).not.toMatch(/sk_(live|test)_[A-Za-z0-9]{13}/);
    expect(lines.stdout).toContain('  ci');
  }, 60_000);

  it.each([
    [['account', 'verify', 'acct_unknown']],
    [['project', 'suspend', 'proj_unknown']],
    [['project', 'list', '--account', 'acct_unknown']],
    [['key', 'create', '--project', 'proj_unknown', '--mode', 'test']],
    [['key', 'list', '--project', 'proj_unknown']],
    [['key', 'revoke', 'key_unknown']],
    [['usage', '--project', 'proj_unknown']],
  ])('answers NOT_FOUND for %j', async (args) => {
    expect(await failingJson(args)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const text = await runTidings([...args, '--db', paths.db]);
    expect(text.stderr).toMatch(/^error: NOT_FOUND: /);
  });

  it('reports usage per project', async () => {
    const projectId = await project(await verifiedAccount('usage@example.com'));
    const usage = await tidingsJson(['usage', '--project', projectId, '--days', '7', '--db', paths.db]);
    expect(usage).toMatchObject({ object: 'usage', project_id: projectId, total: { notifications: 0, attempts: 0 } });
    const text = await runTidings(['usage', '--project', projectId, '--db', paths.db]);
    expect(text.stdout).toContain(`usage of ${projectId}`);
  });

  it('uses TIDINGS_DB when there is no --db', async () => {
    const accountId = await verifiedAccount('env@example.com');
    const listed = await runTidings(['account', 'list', '--json'], { TIDINGS_DB: paths.db });
    expect(JSON.parse(listed.stdout).map((a: { id: string }) => a.id)).toContain(accountId);
  });
});
