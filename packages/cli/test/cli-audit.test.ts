import { userInfo } from 'node:os';
import { join } from 'node:path';
import { createProjectWithCli, runTidings, tidingsJson } from '@tidings/test-support/cli-process.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliDatabase } from './cli-fixtures.js';

const { paths } = cliDatabase();

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
    auditDb = join(paths.dir, 'audit.db');
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
  }, 60_000);

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
    const { accountId, projectId } = await createProjectWithCli(auditDb, 'R', 'reason@example.com');
    for (const reason of ['', '   ', 'x'.repeat(501)]) {
      const refused = await runTidings([
        'project',
        'suspend',
        projectId,
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
      accountId,
      '--db',
      auditDb,
    ]);
    expect(listed?.suspended).toBe(false);
    expect(await audit(['--project', projectId])).toHaveLength(1);
  });

  it("records a project's deletion and a VAPID key rotation, in the words the dashboard uses", async () => {
    const { projectId } = await createProjectWithCli(auditDb, 'Gone', 'gone@example.com');
    await tidingsJson(['project', 'delete', projectId, '--confirm', 'Gone', '--actor', 'dave', '--db', auditDb]);
    const rotated = await tidingsJson<{ public_key: string }>(['vapid', 'rotate', '--actor', 'dave', '--db', auditDb]);
    const byDave = await audit(['--actor', 'dave']);
    expect(byDave.map((entry) => [entry.action, entry.project_id, entry.detail])).toEqual([
      ['vapid_key.rotated', null, rotated.public_key],
      ['project.deleted', projectId, 'Gone'],
    ]);
  });
});
