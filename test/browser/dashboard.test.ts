import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { assertBuilt, type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countOf,
  cspViolations,
  mailedCode,
  recordContext,
  seriousAxeViolations,
  submit,
} from './dashboard-harness.js';
import { launchChromium, until } from './harness.js';

/**
 * The dashboard as a customer meets it: `tidings serve` as a process, a real headless Chromium,
 * the code read from the development mailer's line on stderr.
 */

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let server: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let recorder: ReturnType<typeof recordContext>;
let page: Page;
const axeFindings: string[] = [];
let projectId = '';

async function checkAxe(target: Page = page) {
  axeFindings.push(...(await seriousAxeViolations(target)));
}

async function api(path: string, key: string, init: RequestInit = {}) {
  return fetch(`${server.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
  });
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  db = join(workspace.dir, 'dashboard.db');
  server = await startServe(['--db', db, '--port', '0']);
  browser = await launchChromium();
  context = await browser.newContext();
  recorder = recordContext(context);
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

describe('the dashboard in Chromium', () => {
  it('signs up, verifies with the mailed code, and creates a project', async () => {
    await page.goto(`${server.url}/dashboard/signup`);
    await checkAxe();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await submit(page, 'Create account');
    // The same page whether the address was taken or not; the mailed code signs the account in.
    expect(new URL(page.url()).pathname).toBe('/dashboard/signup/verify');
    expect(await page.textContent('main')).toContain('Enter it to finish creating your account');
    await checkAxe();
    await page.getByLabel('Verification code').fill(await mailedCode(server, EMAIL));
    await submit(page, 'Verify');
    expect(await page.textContent('main')).toContain('Your email address is verified');

    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'tidings_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });

    await page.getByLabel('Project name').fill('Shop');
    await submit(page, 'Create project');
    projectId = /\/dashboard\/projects\/(proj_[0-9a-z]{26})$/.exec(page.url())?.[1] ?? '';
    expect(projectId).not.toBe('');
    expect(await page.textContent('h1')).toContain('Shop');
    await checkAxe();
  });

  it('shows a new key in exactly one response and once in the page, never again; it works until revoked', async () => {
    await page.getByLabel('Key name').fill('production server');
    await page.getByLabel('Live').check();
    const response = await submit(page, 'Create key');
    expect(response?.status()).toBe(200);
    const key = ((await page.textContent('#new-key')) ?? '').trim();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    // Focus is on the key, where a screen reader and the keyboard's copy find it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('new-key');
    expect(countOf(await page.content(), key)).toBe(1);
    expect(await page.textContent('main')).toContain('it will not be shown again');
    expect(await page.textContent('pre.curl')).toContain('$TIDINGS_API_KEY');
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    // The entry now stands for the keys list: a reload cannot post the form again.
    expect(new URL(page.url()).pathname).toBe(`/dashboard/projects/${projectId}`);
    await checkAxe();

    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.textContent('main')).toContain(key.slice(0, 12));
    await page.goto(`${server.url}/dashboard/projects/${projectId}/usage`);
    await page.goBack();
    expect(await page.content()).not.toContain(key);
    await page.goForward();
    expect(await page.content()).not.toContain(key);
    await page.goBack();
    await page.goBack();
    expect(await page.content()).not.toContain(key);

    // The key works against the API, and its last-used time shows in the list.
    const minted = await api('/v1/connect-tokens', key, {
      method: 'POST',
      body: JSON.stringify({ recipient: 'user_42' }),
    });
    expect(minted.status).toBe(201);
    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    const row = page.locator('tr', { hasText: 'production server' });
    expect(await row.locator('td.last-used time').count()).toBe(1);

    const holding = await recorder.holding(key);
    expect(holding.map((entry) => `${entry.status} ${entry.url}`)).toEqual([
      `200 ${server.url}/dashboard/projects/${projectId}/keys`,
    ]);

    await row.getByRole('link', { name: /Revoke/ }).click();
    await page.waitForURL(/\/revoke$/);
    expect(await page.textContent('main')).toContain('takes effect at once');
    expect(await page.textContent('main')).toContain('cannot be undone');
    await checkAxe();
    await submit(page, 'Revoke the key');
    expect(await page.textContent('main')).toContain('0/10 active keys');
    const after = await api('/v1/connect-tokens', key, {
      method: 'POST',
      body: JSON.stringify({ recipient: 'user_42' }),
    });
    expect(after.status).toBe(401);
  });

  it('shows usage, the log of sends and one notification with its attempts, and the audit log', async () => {
    const key = await tidingsJson<{ key: string }>([
      'key',
      'create',
      '--project',
      projectId,
      '--mode',
      'live',
      '--db',
      db,
    ]);
    const token = (await (
      await api('/v1/connect-tokens', key.key, { method: 'POST', body: JSON.stringify({ recipient: 'user_42' }) })
    ).json()) as { token: string };
    const connected = await fetch(`${server.url}/v1/connect/${token.token}`, { method: 'POST' });
    expect(connected.status).toBe(201);
    const browserCredentials = (await connected.json()) as { browser_id: string; browser_secret: string };

    // The live view, open before the send: the send appears, then its attempt turns delivered.
    const live = await context.newPage();
    await live.goto(`${server.url}/dashboard/projects/${projectId}/live`);
    await live.locator('#live-status[data-status="open"]').waitFor({ timeout: 15_000 });
    await checkAxe(live);
    const sent = await api('/v1/notifications', key.key, {
      method: 'POST',
      body: JSON.stringify({ recipient: 'user_42', title: 'Your order shipped' }),
    });
    expect(sent.status).toBe(201);
    const { id, attempts } = (await sent.json()) as { id: string; attempts: { id: string }[] };
    const item = live.locator(`#live-list li[data-id="${id}"]`);
    await item.waitFor({ timeout: 15_000 });
    expect(await item.textContent()).toContain('Your order shipped');
    // The browser polls: the attempt goes out by the poll, and the view says so.
    const polled = await fetch(`${server.url}/v1/connect/${token.token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        browser_id: browserCredentials.browser_id,
        browser_secret: browserCredentials.browser_secret,
      }),
    });
    expect(polled.status).toBe(200);
    await until(
      async () => (await item.textContent()) ?? '',
      (text) => text.includes(`${browserCredentials.browser_id}: sent via poll`),
      'the live view shows the attempt sent via poll',
    );
    const receipt = await fetch(`${server.url}/v1/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        browser_id: browserCredentials.browser_id,
        browser_secret: browserCredentials.browser_secret,
        events: [{ type: 'delivered', attempt_id: attempts[0]!.id }],
      }),
    });
    expect(receipt.status).toBe(202);
    await live.locator(`#live-list li[data-id="${id}"][data-status="completed"]`).waitFor({ timeout: 15_000 });
    expect(await item.textContent()).toContain('delivered via poll');
    await live.close();

    await page.goto(`${server.url}/dashboard/projects/${projectId}/usage`);
    expect(await page.locator('svg.chart rect.bar.live').count()).toBe(30);
    expect(await page.textContent('main')).toMatch(/Live:\s*1\s*notifications/);
    await checkAxe();

    await page.goto(`${server.url}/dashboard/projects/${projectId}/log`);
    await checkAxe();
    await page.getByLabel('Recipient').fill('someone_else');
    await submit(page, 'Filter');
    expect(await page.textContent('main')).toContain('No notification was sent to someone_else');
    await page.getByLabel('Recipient').fill('user_42');
    await submit(page, 'Filter');
    // (The row links its recipient too.)
    await page
      .getByRole('row', { name: /Your order shipped/ })
      .getByRole('link', { name: 'Your order shipped' })
      .click();
    await page.waitForURL(new RegExp(`/notifications/${id}$`));
    expect(await page.locator('tr[data-attempt-id]').count()).toBe(1);
    expect(await page.textContent('main')).toMatch(/delivered/);
    await checkAxe();

    await page.goto(`${server.url}/dashboard/projects/${projectId}/audit`);
    const audit = (await page.textContent('main')) ?? '';
    expect(audit).toContain('Key revoked');
    expect(audit).toContain('Key created');
    expect(audit).toContain('Project created');
    expect(audit).toContain(EMAIL);
    await checkAxe();
    await page.goto(`${server.url}/dashboard/projects/${projectId}/settings`);
    await checkAxe();
  });

  it('refuses the 11th project and the 11th active key, on the page and at the server', async () => {
    await page.goto(`${server.url}/dashboard`);
    for (let i = 2; i <= 10; i++) {
      await page.getByLabel('Project name').fill(`Project ${i}`);
      await submit(page, 'Create project');
      await page.goto(`${server.url}/dashboard`);
    }
    expect(await page.textContent('main')).toContain('10/10 projects');
    expect(await page.getByLabel('Project name').count()).toBe(0);
    expect(await page.textContent('main')).toContain('the most it may');
    const direct = await page.evaluate(async () => {
      const response = await fetch('/dashboard/projects', {
        method: 'POST',
        body: new URLSearchParams({ name: 'Eleven' }),
      });
      return { status: response.status, text: await response.text() };
    });
    expect(direct.status).toBe(409);
    expect(direct.text).toContain('Delete a project you no longer use');

    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    const active = await page.locator('tr', { has: page.locator('.badge.ok') }).count();
    for (let i = active; i < 10; i++) {
      await page.getByLabel('Key name').fill(`key ${i}`);
      // (Exact: the test panel, "Send a test notification", is on the page too.)
      await page.getByLabel('Test', { exact: true }).check();
      await submit(page, 'Create key');
      await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    }
    expect(await page.textContent('main')).toContain('10/10 active keys');
    // At the limit the form gives way to a notice; a direct POST is refused.
    expect(await page.getByLabel('Key name').count()).toBe(0);
    expect(await page.textContent('main')).toContain('This project has 10 of its 10 active keys');
    const refused = await page.evaluate(async (path) => {
      const response = await fetch(path, {
        method: 'POST',
        body: new URLSearchParams({ name: 'eleventh', mode: 'test' }),
      });
      return { status: response.status, text: await response.text() };
    }, `/dashboard/projects/${projectId}/keys`);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Revoke a key you no longer use');
    expect(refused.text).not.toMatch(/sk_(live|test)_[A-Za-z0-9]{32}/);
  });

  it('refuses a form posted from another origin', async () => {
    const attacker: Server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' }).end(
        `<!doctype html><html lang="en"><title>x</title><form method="post" action="${server.url}/dashboard/projects/${projectId}/rename">
          <input name="name" value="Pwned"><button>go</button></form>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const evil = await context.newPage();
      await evil.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      const [response] = await Promise.all([
        evil.waitForNavigation(),
        evil.getByRole('button', { name: 'go' }).click(),
      ]);
      expect(response?.status()).toBe(403);
      await page.goto(`${server.url}/dashboard/projects/${projectId}/settings`);
      expect(await page.textContent('h1')).toContain('Shop');
      await evil.close();
    } finally {
      attacker.close();
    }
  });

  it('creates a key with JavaScript off: shown once, no copy button, gone from the list', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    try {
      const noScript = await plain.newPage();
      await noScript.goto(`${server.url}/dashboard/login`);
      await noScript.getByLabel('Email').fill(EMAIL);
      await noScript.getByLabel('Password').fill(PASSWORD);
      await submit(noScript, 'Sign in');
      await noScript.goto(`${server.url}/dashboard/projects/${projectId}`);
      // Revoke one key (the 10 active keys of the last test), then create one.
      await noScript
        .locator('tr', { hasText: 'key 9' })
        .getByRole('link', { name: /Revoke/ })
        .click();
      await submit(noScript, 'Revoke the key');
      await noScript.getByLabel('Key name').fill('no script');
      await submit(noScript, 'Create key');
      const key = ((await noScript.textContent('#new-key')) ?? '').trim();
      expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
      expect(await noScript.getByRole('button', { name: 'Copy' }).isVisible()).toBe(false);
      await noScript.getByRole('link', { name: 'I have copied it' }).click();
      expect(await noScript.content()).not.toContain(key);
      expect(await noScript.textContent('main')).toContain(key.slice(0, 12));
    } finally {
      await plain.close();
    }
  });

  it('throttles sign-in with 429 and Retry-After', async () => {
    const other = await browser.newContext();
    try {
      const login = await other.newPage();
      let last = 0;
      // Ten tries per address in 15 minutes, whether the address has an account or not.
      for (let i = 0; i < 11; i++) {
        await login.goto(`${server.url}/dashboard/login`);
        await login.getByLabel('Email').fill('mallory@example.com');
        await login.getByLabel('Password').fill('not the password');
        const response = await submit(login, 'Sign in');
        last = response?.status() ?? 0;
        if (i < 10) expect(last).toBe(401);
        if (i === 0) expect(await login.textContent('[role=alert]')).toContain('The email or password is not right');
        if (i === 10) expect(Number(await response?.headerValue('retry-after'))).toBeGreaterThan(0);
      }
      expect(last).toBe(429);
      expect(await login.textContent('main')).toContain('Too many attempts');
    } finally {
      await other.close();
    }
  });

  it('shows an operator every project; a suspended project is shown and its API requests refused', async () => {
    await tidingsJson(['account', 'create', '--email', 'op@example.com', '--verified', '--operator', '--db', db]);
    const { code } = await tidingsJson<{ code: string }>([
      'account',
      'sign-in-code',
      '--email',
      'op@example.com',
      '--db',
      db,
    ]);
    const operatorContext = await browser.newContext();
    try {
      const op = await operatorContext.newPage();
      await op.goto(`${server.url}/dashboard/login/code`);
      await checkAxe(op);
      await op.getByLabel('Email', { exact: true }).fill('op@example.com');
      await op.getByLabel('Code').fill(code);
      await submit(op, 'Sign in');
      await op.getByRole('link', { name: 'Operator' }).click();
      await op.waitForURL(/\/operator$/);
      expect(await op.textContent('main')).toContain(EMAIL);
      await checkAxe(op);
      // "Project 2" of the customer: it has no key yet, so one can be made for it.
      const accounts = await tidingsJson<{ id: string; email: string }[]>(['account', 'list', '--db', db]);
      const owner = accounts.find((account) => account.email === EMAIL)!;
      const projects = await tidingsJson<{ id: string; name: string }[]>([
        'project',
        'list',
        '--account',
        owner.id,
        '--db',
        db,
      ]);
      const target = projects.find((project) => project.name === 'Project 2')!;
      const key = await tidingsJson<{ key: string }>([
        'key',
        'create',
        '--project',
        target.id,
        '--mode',
        'test',
        '--db',
        db,
      ]);
      const mint = () =>
        api('/v1/connect-tokens', key.key, { method: 'POST', body: JSON.stringify({ recipient: 'u' }) });
      expect((await mint()).status).toBe(201);
      await op
        .locator(`tr[data-project-id="${target.id}"]`)
        .getByRole('link', { name: /Suspend/ })
        .click();
      await op.waitForURL(/\/suspend\?/);
      await op.getByLabel('Reason').fill('Abuse reported');
      await submit(op, 'Suspend the project');
      await op.waitForURL(/suspended=1/);
      expect(await op.locator(`tr[data-project-id="${target.id}"]`).textContent()).toContain('suspended');
      const refused = await mint();
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { code: string }).code).toBe('PROJECT_SUSPENDED');
      await page.goto(`${server.url}/dashboard/projects/${target.id}`);
      expect(await page.textContent('h1')).toContain('suspended');
      expect(await page.textContent('main')).toContain('PROJECT_SUSPENDED');
      await checkAxe();
      await op
        .locator(`tr[data-project-id="${target.id}"]`)
        .getByRole('link', { name: /Resume/ })
        .click();
      await op.waitForURL(/\/resume\?/);
      await op.getByLabel('Reason').fill('Resolved');
      await submit(op, 'Resume the project');
      await op.waitForURL(/resumed=1/);
      expect((await mint()).status).toBe(201);
      await page.goto(`${server.url}/dashboard/projects/${target.id}/audit`);
      expect(await page.textContent('main')).toContain('Project suspended');
      expect(await page.textContent('main')).toContain('op@example.com');
      // A customer cannot reach the operator page.
      expect((await page.goto(`${server.url}/dashboard/operator`))?.status()).toBe(404);
    } finally {
      await operatorContext.close();
    }
  });

  it('found no serious or critical accessibility violation, and no CSP violation', () => {
    expect(axeFindings).toEqual([]);
    expect(cspViolations(recorder.console)).toEqual([]);
  });
});
