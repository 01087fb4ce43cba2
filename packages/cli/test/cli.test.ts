import { userInfo } from 'node:os';
import { join } from 'node:path';
import { assertBuilt, runTidings, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
let remove: () => Promise<void>;
let db: string;

beforeAll(async () => {
  assertBuilt();
  ({ dir, remove } = await tempDir());
  db = join(dir, 'cli.db');
});
afterAll(async () => remove());

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
}

/** Runs a `--json` command that must fail with exit 1, and returns the problem it printed. */
async function failingJson(args: string[]): Promise<Problem> {
  const result = await runTidings([...args, '--db', db, '--json']);
  expect(result.code).toBe(1);
  return JSON.parse(result.stdout) as Problem;
}

async function verifiedAccount(email: string): Promise<string> {
  const account = await tidingsJson<{ id: string }>(['account', 'create', '--email', email, '--verified', '--db', db]);
  return account.id;
}

async function project(accountId: string, name = 'P'): Promise<string> {
  const created = await tidingsJson<{ id: string }>([
    'project',
    'create',
    '--account',
    accountId,
    '--name',
    name,
    '--db',
    db,
  ]);
  return created.id;
}

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
    const result = await runTidings([...args, '--db', join(dir, 'usage.db')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`error: ${message}`);
    expect(result.stderr).toContain('usage: tidings');
  });
});

describe('tidings account, project and key', () => {
  it('creates, lists and verifies accounts', async () => {
    const account = await tidingsJson(['account', 'create', '--email', 'ops@example.com', '--db', db]);
    expect(account).toEqual({
      object: 'account',
      id: expect.stringMatching(/^acct_[0-9a-z]{26}$/),
      email: 'ops@example.com',
      verified: false,
      created_at: expect.stringMatching(/Z$/),
      operator: false,
    });
    const text = await runTidings(['account', 'verify', account.id as string, '--db', db]);
    expect(text).toEqual({ code: 0, stdout: `verified account ${account.id} (ops@example.com)\n`, stderr: '' });
    const listed = await tidingsJson<{ id: string; verified: boolean }[]>(['account', 'list', '--db', db]);
    expect(listed.find((a) => a.id === account.id)?.verified).toBe(true);
    const lines = await runTidings(['account', 'list', '--db', db]);
    expect(lines.stdout).toMatch(new RegExp(`^${account.id}  ops@example.com  verified`, 'm'));
  });

  it('makes operators, verifies by email, prints sign-in codes, and refuses a second account per email', async () => {
    const created = await tidingsJson(['account', 'create', '--email', 'Root@Example.com', '--operator', '--db', db]);
    expect(created).toMatchObject({ email: 'root@example.com', verified: false, operator: true });
    const twice = await runTidings(['account', 'create', '--email', 'root@example.com', '--db', db]);
    expect(twice.code).toBe(1);
    expect(twice.stderr + twice.stdout).toContain('exists');
    const verified = await tidingsJson(['account', 'verify', '--email', 'root@example.com', '--db', db]);
    expect(verified).toMatchObject({ id: created.id, verified: true });
    const demoted = await tidingsJson(['account', 'operator', '--email', 'root@example.com', '--revoke', '--db', db]);
    expect(demoted).toMatchObject({ id: created.id, operator: false });
    const code = await tidingsJson(['account', 'sign-in-code', '--email', 'root@example.com', '--db', db]);
    expect(code).toMatchObject({ object: 'sign_in_code', email: 'root@example.com', expires_in_minutes: 15 });
    expect(code.code).toMatch(/^\d{6}$/);
    const unknown = await runTidings(['account', 'operator', '--email', 'nobody@example.com', '--db', db]);
    expect(unknown.code).toBe(1);
  });

  it('refuses a project on an unverified account: EMAIL_NOT_VERIFIED', async () => {
    const account = await tidingsJson<{ id: string }>(['account', 'create', '--email', 'new@example.com', '--db', db]);
    const problem = await failingJson(['project', 'create', '--account', account.id, '--name', 'P']);
    expect(problem).toEqual({
      type: 'urn:tidings:problem:email-not-verified',
      title: expect.any(String),
      status: 403,
      detail: expect.stringContaining('Verify the account'),
      code: 'EMAIL_NOT_VERIFIED',
      request_id: expect.stringMatching(/^req_[0-9a-z]{26}$/),
    });
    const text = await runTidings(['project', 'create', '--account', account.id, '--name', 'P', '--db', db]);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(/^error: EMAIL_NOT_VERIFIED: Verify the account/);
  });

  it('refuses an invalid email with the field that is wrong', async () => {
    const problem = await failingJson(['account', 'create', '--email', 'not-an-email']);
    expect(problem).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    const text = await runTidings(['account', 'create', '--email', 'not-an-email', '--db', db]);
    expect(text.stderr).toContain('email: must be an email address');
  });

  it('holds at most 10 projects per account: PROJECT_LIMIT_REACHED', async () => {
    const accountId = await verifiedAccount('many@example.com');
    for (let i = 1; i <= 10; i++) await project(accountId, `P${i}`);
    const problem = await failingJson(['project', 'create', '--account', accountId, '--name', 'P11']);
    expect(problem).toMatchObject({ status: 409, code: 'PROJECT_LIMIT_REACHED' });
    expect(await tidingsJson<unknown[]>(['project', 'list', '--account', accountId, '--db', db])).toHaveLength(10);
  });

  it('suspends and resumes a project', async () => {
    const projectId = await project(await verifiedAccount('suspend@example.com'));
    const suspended = await tidingsJson(['project', 'suspend', projectId, '--db', db]);
    expect(suspended).toMatchObject({ object: 'project', id: projectId, suspended: true });
    expect(suspended.suspended_at).toEqual(expect.any(String));
    const resumed = await runTidings(['project', 'resume', projectId, '--db', db]);
    expect(resumed.stdout).toBe(`resumed project ${projectId}\n`);
    const [listed] = await tidingsJson<{ suspended: boolean }[]>([
      'project',
      'list',
      '--account',
      suspended.account_id as string,
      '--db',
      db,
    ]);
    expect(listed?.suspended).toBe(false);
  });

  it('deletes a project only when --confirm repeats its name', async () => {
    const accountId = await verifiedAccount('delete@example.com');
    const projectId = await project(accountId, 'Doomed');
    const wrong = await failingJson(['project', 'delete', projectId, '--confirm', 'not the name']);
    expect(wrong).toMatchObject({ code: 'VALIDATION_FAILED' });
    const missing = await runTidings(['project', 'delete', projectId, '--db', db]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--confirm is required');
    expect(await tidingsJson<unknown[]>(['project', 'list', '--account', accountId, '--db', db])).toHaveLength(1);
    const deleted = await runTidings(['project', 'delete', projectId, '--confirm', 'Doomed', '--db', db]);
    expect(deleted.stdout).toBe(`deleted project ${projectId} "Doomed" and all it held\n`);
    expect(await tidingsJson<unknown[]>(['project', 'list', '--account', accountId, '--db', db])).toEqual([]);
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
      db,
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(
      /^created api_key key_[0-9a-z]{26} \(live\)\n {2}key: sk_live_[A-Za-z0-9]{32} {2}\(shown once; store it now\)\n$/,
    );
    const keys = [];
    for (let i = 2; i <= 10; i++) {
      keys.push(
        await tidingsJson(['key', 'create', '--project', projectId, '--mode', i % 2 ? 'live' : 'test', '--db', db]),
      );
    }
    const second = keys[0]!;
    expect(second).toMatchObject({ object: 'api_key', mode: 'test', status: 'active', project_id: projectId });
    expect(second.key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(second.prefix).toBe(String(second.key).slice(0, 12));

    const limit = await failingJson(['key', 'create', '--project', projectId, '--mode', 'live']);
    expect(limit).toMatchObject({ status: 409, code: 'KEY_LIMIT_REACHED' });

    const revoked = await tidingsJson(['key', 'revoke', second.id as string, '--db', db]);
    expect(revoked).toMatchObject({ id: second.id, status: 'revoked', revoked_at: expect.any(String) });
    expect(revoked).not.toHaveProperty('key');
    await tidingsJson(['key', 'create', '--project', projectId, '--mode', 'test', '--db', db]);

    const listed = await tidingsJson<Record<string, unknown>[]>(['key', 'list', '--project', projectId, '--db', db]);
    expect(listed).toHaveLength(11);
    expect(listed.filter((key) => key.status === 'active')).toHaveLength(10);
    for (const key of listed) expect(key).not.toHaveProperty('key');
    const lines = await runTidings(['key', 'list', '--project', projectId, '--db', db]);
    expect(lines.stdout).not.toMatch(/sk_(live|test)_[A-Za-z0-9]{13}/);
    expect(lines.stdout).toContain('  ci');
  });

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
    const text = await runTidings([...args, '--db', db]);
    expect(text.stderr).toMatch(/^error: NOT_FOUND: /);
  });

  it('reports usage per project', async () => {
    const projectId = await project(await verifiedAccount('usage@example.com'));
    const usage = await tidingsJson(['usage', '--project', projectId, '--days', '7', '--db', db]);
    expect(usage).toMatchObject({ object: 'usage', project_id: projectId, total: { notifications: 0, attempts: 0 } });
    const text = await runTidings(['usage', '--project', projectId, '--db', db]);
    expect(text.stdout).toContain(`usage of ${projectId}`);
  });

  it('uses TIDINGS_DB when there is no --db', async () => {
    const accountId = await verifiedAccount('env@example.com');
    const listed = await runTidings(['account', 'list', '--json'], { TIDINGS_DB: db });
    expect(JSON.parse(listed.stdout).map((a: { id: string }) => a.id)).toContain(accountId);
  });
});

interface AuditEntry {
  object: 'audit_event';
  id: string;
  project_id: string | null;
  action: string;
  source: 'dashboard' | 'cli';
  actor: string;
  detail: string;
  reason: string | null;
  created_at: string;
}

describe('tidings audit and --actor', () => {
  let auditDb: string;
  beforeAll(() => {
    auditDb = join(dir, 'audit.db');
  });
  const audit = (args: string[] = []) => tidingsJson<AuditEntry[]>(['audit', ...args, '--db', auditDb]);

  it('records every change with its actor (--actor, else the OS user) and source, never a key', async () => {
    const account = await tidingsJson<{ id: string }>([
      'account',
      'create',
      '--email',
      'owner@example.com',
      '--verified',
      '--actor',
      'alice',
      '--db',
      auditDb,
    ]);
    const project = await tidingsJson<{ id: string }>([
      'project',
      'create',
      '--account',
      account.id,
      '--name',
      'Shop',
      '--db',
      auditDb,
    ]);
    const key = await tidingsJson<{ id: string; key: string; prefix: string }>([
      'key',
      'create',
      '--project',
      project.id,
      '--mode',
      'live',
      '--actor',
      'bob',
      '--db',
      auditDb,
    ]);
    const suspended = await tidingsJson([
      'project',
      'suspend',
      project.id,
      '--reason',
      '  Spam reports: 100% of sends  ',
      '--actor',
      'alice',
      '--db',
      auditDb,
    ]);
    expect(suspended).toMatchObject({
      suspended: true,
      suspended_reason: 'Spam reports: 100% of sends',
      suspended_by: 'alice',
    });
    await tidingsJson(['project', 'resume', project.id, '--reason', 'fixed', '--actor', 'alice', '--db', auditDb]);
    await tidingsJson(['key', 'revoke', key.id, '--actor', 'bob', '--db', auditDb]);
    await tidingsJson(['account', 'operator', '--email', 'owner@example.com', '--actor', 'carol', '--db', auditDb]);
    const signIn = await tidingsJson<{ code: string }>([
      'account',
      'sign-in-code',
      '--email',
      'owner@example.com',
      '--actor',
      'carol',
      '--db',
      auditDb,
    ]);

    const entries = await audit();
    expect(entries.map((entry) => [entry.action, entry.actor])).toEqual([
      ['account.sign_in_code_issued', 'carol'],
      ['account.operator_granted', 'carol'],
      ['key.revoked', 'bob'],
      ['project.resumed', 'alice'],
      ['project.suspended', 'alice'],
      ['key.created', 'bob'],
      ['project.created', userInfo().username],
      ['account.created', 'alice'],
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({ object: 'audit_event', source: 'cli', id: expect.stringMatching(/^aud_/) });
    }
    expect(entries.find((entry) => entry.action === 'project.suspended')).toMatchObject({
      project_id: project.id,
      reason: 'Spam reports: 100% of sends',
    });
    expect(entries.find((entry) => entry.action === 'account.created')).toMatchObject({ project_id: null });
    const text = JSON.stringify(entries);
    expect(text).toContain(key.prefix);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(signIn.code);

    // What changes nothing records nothing: a second revocation, a second resumption.
    await tidingsJson(['key', 'revoke', key.id, '--db', auditDb]);
    const again = await runTidings(['project', 'resume', project.id, '--db', auditDb]);
    expect(again.stdout).toBe(`project ${project.id} was not suspended\n`);
    expect(await audit()).toHaveLength(entries.length);
  });

  it('filters by --actor, --project and --limit, and prints lines without --json', async () => {
    const byAlice = await audit(['--actor', 'alice']);
    expect(byAlice.map((entry) => entry.action)).toEqual(['project.resumed', 'project.suspended', 'account.created']);
    const projectId = byAlice[0]!.project_id!;
    const ofProject = await audit(['--project', projectId]);
    expect(ofProject.map((entry) => entry.action)).toEqual([
      'key.revoked',
      'project.resumed',
      'project.suspended',
      'key.created',
      'project.created',
    ]);
    expect(await audit(['--project', projectId, '--actor', 'bob', '--limit', '1'])).toEqual([ofProject[0]]);
    expect(await audit(['--actor', 'nobody'])).toEqual([]);
    const lines = await runTidings(['audit', '--actor', 'alice', '--limit', '2', '--db', auditDb]);
    expect(lines.code).toBe(0);
    expect(lines.stdout.trim().split('\n')).toHaveLength(2);
    expect(lines.stdout).toMatch(/project\.resumed {2}alice \(CLI\) {2}proj_\w+ {2}Shop \(operator\) {2}reason: fixed/);
    expect((await runTidings(['audit', '--actor', 'nobody', '--db', auditDb])).stdout).toBe('no audit entries\n');
  });

  it.each([
    [['audit', '--limit', '0'], 2, '--limit must be a whole number from 1 to 1000'],
    [['audit', '--actor', ''], 2, '--actor must not be empty'],
    [['audit', '--project', 'proj_unknown'], 1, 'NOT_FOUND'],
    [['account', 'create', '--email', 'x@example.com', '--actor', ''], 2, '--actor must be 1 to 254 characters'],
    [['account', 'list', '--actor', 'alice'], 2, "Unknown option '--actor'"],
  ])('refuses %j (exit %i)', async (args, code, message) => {
    const result = await runTidings([...args, '--db', auditDb]);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect((await audit(['--actor', 'x@example.com'])).length).toBe(0);
  });

  it('refuses an empty or too long --reason, and suspends nothing', async () => {
    const account = await tidingsJson<{ id: string }>([
      'account',
      'create',
      '--email',
      'reason@example.com',
      '--verified',
      '--db',
      auditDb,
    ]);
    const project = await tidingsJson<{ id: string }>([
      'project',
      'create',
      '--account',
      account.id,
      '--name',
      'R',
      '--db',
      auditDb,
    ]);
    for (const reason of ['', '   ', 'x'.repeat(501)]) {
      const refused = await runTidings([
        'project',
        'suspend',
        project.id,
        '--reason',
        reason,
        '--db',
        auditDb,
        '--json',
      ]);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    }
    const [listed] = await tidingsJson<{ suspended: boolean }[]>([
      'project',
      'list',
      '--account',
      account.id,
      '--db',
      auditDb,
    ]);
    expect(listed?.suspended).toBe(false);
    expect(await audit(['--project', project.id])).toHaveLength(1);
  });
});

describe('tidings webhook', () => {
  interface Endpoint {
    id: string;
    url: string;
    events: string[];
    status: string;
    secret?: string;
    previous_secret_expires_at: string | null;
  }

  it('creates, lists, updates, disables, enables, rolls the secret of and deletes an endpoint, with audit entries', async () => {
    const projectId = await project(await verifiedAccount('hooks@example.com'), 'Hooks');
    const created = await tidingsJson<Endpoint>([
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      'https://example.com/hooks',
      '--events',
      'notification.completed,browser.connected',
      '--actor',
      'dana',
      '--db',
      db,
    ]);
    expect(created.id).toMatch(/^whe_/);
    expect(created.events).toEqual(['notification.completed', 'browser.connected']);
    expect(created.secret).toMatch(/^whsec_/);

    const listed = await runTidings(['webhook', 'list', '--project', projectId, '--db', db]);
    expect(listed.stdout).toContain(`webhook_endpoint ${created.id} enabled https://example.com/hooks`);
    expect(listed.stdout).not.toContain(created.secret);

    const updated = await tidingsJson<Endpoint>(['webhook', 'update', created.id, '--events', '*', '--db', db]);
    expect(updated.events).toEqual(['*']);
    expect((await tidingsJson<Endpoint>(['webhook', 'disable', created.id, '--db', db])).status).toBe('disabled');
    expect((await tidingsJson<Endpoint>(['webhook', 'enable', created.id, '--db', db])).status).toBe('enabled');

    const rolled = await runTidings(['webhook', 'roll-secret', created.id, '--grace-hours', '2', '--db', db]);
    expect(rolled.code).toBe(0);
    const secret = /secret (whsec_\S+)/.exec(rolled.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(secret).not.toBe(created.secret);

    const invalid = await failingJson([
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      'http://x',
      '--events',
      '*',
    ]);
    expect(invalid.code).toBe('VALIDATION_FAILED');

    await tidingsJson(['webhook', 'delete', created.id, '--db', db]);
    expect(await tidingsJson(['webhook', 'list', '--project', projectId, '--db', db])).toEqual([]);
    expect((await failingJson(['webhook', 'delete', created.id])).code).toBe('NOT_FOUND');

    const entries = await tidingsJson<{ action: string; actor: string; detail: string; project_id: string | null }[]>([
      'audit',
      '--project',
      projectId,
      '--db',
      db,
    ]);
    const actions = entries.filter((entry) => entry.action.startsWith('webhook.')).map((entry) => entry.action);
    expect(actions).toEqual([
      'webhook.deleted',
      'webhook.secret_rolled',
      'webhook.enabled',
      'webhook.disabled',
      'webhook.updated',
      'webhook.created',
    ]);
    expect(JSON.stringify(entries)).not.toContain('whsec_');
  });

  it('lists an endpoint’s messages, sends a test event, resends one and replays them, with audit entries', async () => {
    interface Message {
      id: string;
      event_type: string;
      status: string;
      endpoint_id: string;
    }
    const projectId = await project(await verifiedAccount('messages@example.com'), 'Messages');
    const created = await tidingsJson<Endpoint>([
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      'https://example.com/hooks',
      '--events',
      '*',
      '--db',
      db,
    ]);
    expect(await tidingsJson(['webhook', 'messages', created.id, '--db', db])).toEqual([]);
    const test = await tidingsJson<Message>(['webhook', 'test', created.id, '--db', db]);
    expect(test).toMatchObject({ event_type: 'webhook.test', status: 'pending', endpoint_id: created.id });
    const listed = await runTidings(['webhook', 'messages', created.id, '--status', 'pending', '--db', db]);
    expect(listed.stdout).toContain(`webhook_message ${test.id} pending webhook.test attempts=0`);
    expect(await tidingsJson(['webhook', 'messages', created.id, '--status', 'delivered', '--db', db])).toEqual([]);

    // A pending message is on its way already: resending answers it as it is.
    const resent = await tidingsJson<Message>(['webhook', 'resend', test.id, '--actor', 'dana', '--db', db]);
    expect(resent).toMatchObject({ id: test.id, status: 'pending' });
    const replayed = await tidingsJson<{ count: number }>([
      'webhook',
      'replay',
      created.id,
      '--since',
      '2020-01-01T00:00:00Z',
      '--actor',
      'dana',
      '--db',
      db,
    ]);
    expect(replayed).toEqual({ count: 0 });
    expect((await failingJson(['webhook', 'resend', 'msg_unknown'])).code).toBe('NOT_FOUND');
    expect((await failingJson(['webhook', 'messages', 'whe_unknown'])).code).toBe('NOT_FOUND');
    const badSince = await runTidings(['webhook', 'replay', created.id, '--since', 'yesterday', '--db', db]);
    expect(badSince.code).not.toBe(0);
    expect(badSince.stderr).toContain('--since must be an ISO 8601 time');

    const entries = await tidingsJson<{ action: string; actor: string }[]>([
      'audit',
      '--project',
      projectId,
      '--db',
      db,
    ]);
    expect(entries.slice(0, 2).map((entry) => [entry.action, entry.actor])).toEqual([
      ['webhook.messages_replayed', 'dana'],
      ['webhook.message_resent', 'dana'],
    ]);
  }, 60_000);
});
