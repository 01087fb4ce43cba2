import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard } from '../../../../test/support/dashboard-app.js';
import { AUDIT_POLICY, auditEntryOf, type DashboardOperation } from './audit-policy.js';

const DASHBOARD_OPERATIONS: DashboardOperation[] = [
  'setAccountOperator',
  'issueSignInCode',
  'sendInvitation',
  'revokeInvitation',
];

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => dashboard.close());

describe('the audit policy', () => {
  it('lists every operation of the admin API and of the dashboard, audited or with why not, and nothing else', () => {
    const operations = [...Object.keys(dashboard.tidings.admin), ...DASHBOARD_OPERATIONS].sort();
    expect(operations.length).toBeGreaterThan(40);
    expect(Object.keys(AUDIT_POLICY).sort()).toEqual(operations);
    for (const [operation, rule] of Object.entries(AUDIT_POLICY)) {
      const decided = 'notAudited' in rule ? rule.notAudited.length > 0 : typeof rule.detail === 'function';
      expect(decided, `${operation} is audited or says why not`).toBe(true);
    }
  });

  it('audits every change to a project, its keys and its webhooks', () => {
    const audited = Object.entries(AUDIT_POLICY)
      .filter(([, rule]) => !('notAudited' in rule))
      .map(([operation]) => operation);
    expect(audited).toEqual(
      expect.arrayContaining([
        'createProject',
        'renameProject',
        'suspendProject',
        'resumeProject',
        'deleteProject',
        'createKey',
        'revokeKey',
        'createWebhookEndpoint',
        'rollWebhookSecret',
        'rotateVapidKey',
      ]),
    );
  });

  it('words the entries from the changed objects, and names a key by its prefix, never its value', async () => {
    const { admin } = dashboard.tidings;
    const account = await admin.createAccount({ email: 'ops@example.com', verified: true });
    const project = await admin.createProject({ accountId: account.id, name: 'Shop' });
    const key = await admin.createKey({ projectId: project.id, mode: 'live', name: 'server' });
    const entry = auditEntryOf('createKey', key);
    expect(entry).toEqual({
      projectId: project.id,
      action: 'key.created',
      detail: `server (live, ${key.prefix}…, ${key.id})`,
      reason: null,
    });
    expect(JSON.stringify(entry)).not.toContain(key.key!);

    const renamed = await admin.renameProject(project.id, 'Shop EU');
    expect(auditEntryOf('renameProject', { before: project, after: renamed })).toMatchObject({
      action: 'project.renamed',
      detail: 'Shop → Shop EU',
    });
    const suspended = await admin.suspendProject(project.id, { reason: 'abuse', actor: 'ops' });
    expect(auditEntryOf('suspendProject', suspended, 'abuse')).toEqual({
      projectId: project.id,
      action: 'project.suspended',
      detail: 'Shop EU (operator)',
      reason: 'abuse',
    });
    expect(auditEntryOf('setAccountOperator', { account, operator: false }).action).toBe('account.operator_revoked');
    expect(auditEntryOf('createAccount', { account, operator: true }).detail).toBe(
      `ops@example.com (${account.id}, verified, operator)`,
    );
  });
});
