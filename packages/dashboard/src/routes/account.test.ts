import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await dashboard.close();
});

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'purple lantern orbit nine';
const KEY_PATTERN = /sk_(live|test)_[A-Za-z0-9]{32}/;

type Browser = Awaited<ReturnType<typeof signUpVerified>>;

async function createProject(browser: Browser, name = 'Shop') {
  const response = await browser.post('/dashboard/projects', { name });
  expect(response.status).toBe(303);
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

async function createKey(browser: Browser, projectId: string) {
  const html = await (
    await browser.post(`/dashboard/projects/${projectId}/keys`, { name: 'server', mode: 'live' })
  ).text();
  return html.match(KEY_PATTERN)![0];
}

/** An API request with a key, as a back end makes it: 404 for an unknown notification means the key works. */
async function apiStatus(key: string): Promise<number> {
  const response = await dashboard.app.request(`${ORIGIN}/v1/notifications/ntf_00000000000000000000000000`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  return response.status;
}

async function signIn(
  email = 'ada@example.com',
  password = PASSWORD,
  userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
) {
  const browser = dashboard.browser();
  const response = await browser.post(
    '/dashboard/login',
    { email, password },
    { Origin: ORIGIN, 'User-Agent': userAgent },
  );
  expect(response.status).toBe(303);
  return browser;
}

describe('deleting a project', () => {
  it('refuses a wrong name with a clear error and deletes nothing', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const key = await createKey(browser, id);
    const confirm = await (await browser.get(`/dashboard/projects/${id}/delete`)).text();
    expect(confirm).toContain('1 active key stops working');
    for (const name of ['Shop2', 'shop', '']) {
      const refused = await browser.post(`/dashboard/projects/${id}/delete`, { name });
      expect(refused.status).toBe(400);
      const html = await refused.text();
      expect(html).toContain(name === '' ? 'Type the project&#39;s name' : 'Type the project’s name exactly as shown');
    }
    expect(await dashboard.store.getProject(id)).not.toBeNull();
    expect(await apiStatus(key)).toBe(404);
  });

  it('stops its keys at once, frees a place under the limit, keeps the audit entry', async () => {
    const browser = await signUpVerified(dashboard);
    const ids: string[] = [];
    for (let i = 1; i <= 10; i++) ids.push(await createProject(browser, `P${i}`));
    const key = await createKey(browser, ids[0]!);
    expect(await apiStatus(key)).toBe(404);
    expect((await browser.post('/dashboard/projects', { name: 'Eleventh' })).status).toBe(409);

    const deleted = await browser.post(`/dashboard/projects/${ids[0]}/delete`, { name: 'P1' });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('Location')).toBe('/dashboard?deleted=1');
    // The very next request with the key is refused.
    expect(await apiStatus(key)).toBe(401);
    expect(await dashboard.store.listApiKeys(ids[0]!).catch(() => [])).toEqual([]);
    // Its pages, and a form sent again from one, say it was deleted (410 Gone), to its account only.
    const pages = ['', '/usage', '/log', '/live', '/audit', '/settings', '/webhooks', '/delete'];
    for (const path of pages.map((page) => `/dashboard/projects/${ids[0]}${page}`)) {
      const gone = await browser.get(path);
      expect(gone.status, path).toBe(410);
      expect(gone.headers.get('Cache-Control')).toBe('no-store');
      const html = await gone.text();
      expect(html).toContain('<h1>This project was deleted</h1>');
      expect(html).toMatch(
        /The project <strong>P1<\/strong> was deleted on <time datetime="[^"]+"><span class="nowrap">\d{4}-\d\d-\d\d<\/span> <span class="nowrap">\d\d:\d\d:\d\d UTC<\/span><\/time> <span class="muted">\([^)]*\)<\/span> by ada@example\.com\./,
      );
      expect(html).toContain(`<code>${ids[0]}</code>`);
    }
    const again = await browser.post(`/dashboard/projects/${ids[0]}/delete`, { name: 'P1' });
    expect(again.status).toBe(410);
    // A project that never existed stays 404, and another account's deleted one is no different.
    const never = await browser.get('/dashboard/projects/prj_01jd0000000000000000000000');
    expect(never.status).toBe(404);
    expect(await never.text()).toContain('No such project');
    const stranger = await signUpVerified(dashboard, 'eve@example.com');
    const foreign = await stranger.get(`/dashboard/projects/${ids[0]}`);
    expect(foreign.status).toBe(404);
    const unknown = await foreign.text();
    expect(unknown).toContain('No such project');
    expect(unknown).not.toContain('deleted');
    expect(await (await browser.get('/dashboard?deleted=1')).text()).toContain('9/10 projects');
    expect((await browser.post('/dashboard/projects', { name: 'Eleventh' })).status).toBe(303);
    const events = await dashboard.dashboardStore.listAuditEvents({ projectId: ids[0]!, limit: 10 });
    expect(events.find((event) => event.action === 'project.deleted')).toMatchObject({
      detail: 'P1',
      actorEmail: 'ada@example.com',
    });
  });

  it('ends an open live view of the project when it is deleted', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const stream = await dashboard.app.request(`${ORIGIN}/dashboard/projects/${id}/live/stream`, {
      headers: { Cookie: browser.cookie() },
    });
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: ready');
    expect((await browser.post(`/dashboard/projects/${id}/delete`, { name: 'Shop' })).status).toBe(303);
    // The deletion wakes the stream through the hub; it finds the project gone and ends.
    let done = false;
    while (!done) done = (await reader.read()).done;
    // It ends as a finished stream, not as a failure reported on the console.
    expect(errors).not.toHaveBeenCalled();
  });

  it("answers 404 for another account's project and deletes nothing", async () => {
    const owner = await signUpVerified(dashboard);
    const id = await createProject(owner);
    const other = await signUpVerified(dashboard, 'eve@example.com');
    expect((await other.post(`/dashboard/projects/${id}/delete`, { name: 'Shop' })).status).toBe(404);
    expect(await dashboard.store.getProject(id)).not.toBeNull();
  });
});

describe('changing the password', () => {
  it('refuses a wrong current password and a weak new one; ends the other sessions, keeps this one', async () => {
    const browser = await signUpVerified(dashboard);
    const other = await signIn();
    const wrong = await browser.post('/dashboard/account/password', {
      current_password: 'not my password',
      password: NEW_PASSWORD,
    });
    expect(wrong.status).toBe(401);
    const wrongPage = await wrong.text();
    expect(wrongPage).toContain('That is not your current password.');
    const weak = await browser.post('/dashboard/account/password', {
      current_password: PASSWORD,
      password: 'password1234',
    });
    expect(weak.status).toBe(400);
    const weakPage = await weak.text();
    expect(weakPage).toContain('Add more words');
    const short = await browser.post('/dashboard/account/password', { current_password: PASSWORD, password: 'short' });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('Use at least 10 characters');
    // Nothing changed: the old password still signs in.
    await signIn();

    const changed = await browser.post('/dashboard/account/password', {
      current_password: PASSWORD,
      password: NEW_PASSWORD,
    });
    expect(changed.status).toBe(303);
    expect(changed.headers.get('Location')).toBe('/dashboard/account?password=1');
    expect((await browser.get('/dashboard/account?password=1')).status).toBe(200);
    expect((await other.get('/dashboard/account')).status).toBe(303);
    const old = await dashboard.browser().post('/dashboard/login', { email: 'ada@example.com', password: PASSWORD });
    expect(old.status).toBe(401);
    await signIn('ada@example.com', NEW_PASSWORD);
    // No password appears in what the page sends back.
    for (const page of [wrongPage, weakPage]) {
      expect(page).not.toContain(PASSWORD);
      expect(page).not.toContain('password1234');
    }
  });

  it('throttles wrong current passwords as sign-ins are', async () => {
    const browser = await signUpVerified(dashboard);
    let last = 0;
    for (let i = 0; i < 11; i++) {
      last = (
        await browser.post('/dashboard/account/password', { current_password: `wrong ${i}`, password: NEW_PASSWORD })
      ).status;
    }
    expect(last).toBe(429);
  });
});

describe('sessions', () => {
  it('lists sessions without their ids, marks this one, revokes one and all others', async () => {
    const browser = await signUpVerified(dashboard);
    const firefox = await signIn();
    const chrome = await signIn(
      'ada@example.com',
      PASSWORD,
      'Mozilla/5.0 (Windows NT 10.0) Chrome/140.0 Safari/537.36',
    );
    const page = await (await browser.get('/dashboard/account/sessions')).text();
    expect(page).toContain('3 active sessions');
    expect(page).toContain('Firefox on Linux');
    expect(page).toContain('Chrome on Windows');
    expect(page).toContain('this session');
    const cookieValue = (cookie: string) => cookie.split('=')[1]!;
    for (const session of [browser, firefox, chrome]) expect(page).not.toContain(cookieValue(session.cookie()));

    const firefoxPage = await (await firefox.get('/dashboard/account/sessions')).text();
    const refs = [...firefoxPage.matchAll(/account\/sessions\/([0-9a-f]{16})\/revoke/g)].map((m) => m[1]!);
    expect(refs).toHaveLength(2);
    // Revoke Chrome's session from Firefox: find the row of Chrome.
    const chromeRow = /<li data-session="other"><strong>Chrome on Windows[\s\S]*?<\/li>/.exec(firefoxPage)?.[0] ?? '';
    const chromeRef = /sessions\/([0-9a-f]{16})\/revoke/.exec(chromeRow)![1]!;
    expect((await firefox.post(`/dashboard/account/sessions/${chromeRef}/revoke`)).status).toBe(303);
    expect((await chrome.get('/dashboard/account')).status).toBe(303);
    expect((await firefox.post(`/dashboard/account/sessions/${chromeRef}/revoke`)).status).toBe(404);
    expect((await firefox.post('/dashboard/account/sessions/zzzz/revoke')).status).toBe(404);

    expect((await firefox.post('/dashboard/account/sessions/revoke-others')).status).toBe(303);
    expect((await browser.get('/dashboard/account')).status).toBe(303);
    const after = await (await firefox.get('/dashboard/account/sessions?others=1')).text();
    expect(after).toContain('1 active session');
    expect(after).toContain('Every other session is signed out.');
  });

  it("cannot end another account's session", async () => {
    const ada = await signUpVerified(dashboard);
    const eve = await signUpVerified(dashboard, 'eve@example.com');
    const evePage = await (await eve.get('/dashboard/account/sessions')).text();
    expect(evePage).toContain('1 active session');
    const [session] = await dashboard.dashboardStore.listAccountSessions({
      accountId: (await dashboard.dashboardStore.findAccountByEmail('eve@example.com'))!.account.id,
      now: dashboard.clock.now(),
    });
    expect((await ada.post(`/dashboard/account/sessions/${session!.ref}/revoke`)).status).toBe(404);
    expect((await eve.get('/dashboard/account')).status).toBe(200);
  });
});

describe('changing the email address', () => {
  it('mails a code to the new address; a wrong code is refused; the right one switches and tells the old address', async () => {
    const browser = await signUpVerified(dashboard);
    const wrongPassword = await browser.post('/dashboard/account/email', {
      email: 'ada@new.example',
      current_password: 'nope nope nope',
    });
    expect(wrongPassword.status).toBe(401);
    expect(dashboard.mailer.lastCode('ada@new.example')).toBeUndefined();
    const asked = await browser.post('/dashboard/account/email', {
      email: 'Ada@New.example',
      current_password: PASSWORD,
    });
    expect(asked.status).toBe(303);
    expect(asked.headers.get('Location')).toBe('/dashboard/account/email/confirm?email=ada%40new.example');
    const code = dashboard.mailer.lastCode('ada@new.example')!;
    expect(code).toMatch(/^\d{6}$/);
    const wrong = await browser.post('/dashboard/account/email/confirm', {
      email: 'ada@new.example',
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('That code is not right. 4 tries left.');
    // The code is bound to this account: another account cannot use it.
    const eve = await signUpVerified(dashboard, 'eve@example.com');
    expect((await eve.post('/dashboard/account/email/confirm', { email: 'ada@new.example', code })).status).toBe(400);

    const confirmed = await browser.post('/dashboard/account/email/confirm', { email: 'ada@new.example', code });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('Location')).toBe('/dashboard/account?email=1');
    expect(await (await browser.get('/dashboard/account?email=1')).text()).toContain('ada@new.example');
    const notice = dashboard.mailer.sent.at(-1)!;
    expect(notice.to).toBe('ada@example.com');
    expect(notice.text).toContain('ada@new.example');
    await signIn('ada@new.example');
    expect(
      (await dashboard.browser().post('/dashboard/login', { email: 'ada@example.com', password: PASSWORD })).status,
    ).toBe(401);
  });

  it('answers a taken address as a free one, without a code, and warns its owner', async () => {
    await signUpVerified(dashboard, 'eve@example.com');
    const browser = await signUpVerified(dashboard);
    const before = dashboard.mailer.sent.length;
    const taken = await browser.post('/dashboard/account/email', {
      email: 'eve@example.com',
      current_password: PASSWORD,
    });
    const free = await browser.post('/dashboard/account/email', {
      email: 'free@example.com',
      current_password: PASSWORD,
    });
    expect(taken.status).toBe(free.status);
    expect(taken.headers.get('Location')).toBe('/dashboard/account/email/confirm?email=eve%40example.com');
    const takenPage = await (await browser.get('/dashboard/account/email/confirm?email=eve%40example.com')).text();
    const freePage = await (await browser.get('/dashboard/account/email/confirm?email=free%40example.com')).text();
    expect(takenPage.replaceAll('eve%40example.com', 'X').replaceAll('eve@example.com', 'X')).toBe(
      freePage.replaceAll('free%40example.com', 'X').replaceAll('free@example.com', 'X'),
    );
    const mails = dashboard.mailer.sent.slice(before);
    const toEve = mails.filter((mail) => mail.to === 'eve@example.com');
    expect(toEve).toHaveLength(1);
    expect(toEve[0]!.code).toBeUndefined();
    const guess = await browser.post('/dashboard/account/email/confirm', { email: 'eve@example.com', code: '123456' });
    expect(guess.status).toBe(400);
    expect((await dashboard.dashboardStore.findAccountByEmail('ada@example.com'))?.account.email).toBe(
      'ada@example.com',
    );
  });
});

describe('deleting the account', () => {
  it('refuses a wrong password or a wrong email, then deletes everything, signs out, frees the email', async () => {
    const browser = await signUpVerified(dashboard);
    const other = await signIn();
    const id = await createProject(browser);
    const key = await createKey(browser, id);
    const wrongEmail = await browser.post('/dashboard/account/delete', {
      confirm_email: 'someone@example.com',
      current_password: PASSWORD,
    });
    expect(wrongEmail.status).toBe(400);
    expect(await wrongEmail.text()).toContain('nothing was deleted');
    const wrongPassword = await browser.post('/dashboard/account/delete', {
      confirm_email: 'ada@example.com',
      current_password: 'not it at all',
    });
    expect(wrongPassword.status).toBe(401);
    expect(await apiStatus(key)).toBe(404);

    const deleted = await browser.post('/dashboard/account/delete', {
      confirm_email: 'ADA@example.com ',
      current_password: PASSWORD,
    });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('Location')).toBe('/dashboard/account/deleted');
    expect(browser.cookie()).toBe('');
    expect(await (await browser.get('/dashboard/account/deleted')).text()).toContain('Your account is deleted');
    expect(await apiStatus(key)).toBe(401);
    expect((await other.get('/dashboard')).status).toBe(303);
    expect(await dashboard.store.getProject(id)).toBeNull();
    expect(await dashboard.dashboardStore.findAccountByEmail('ada@example.com')).toBeNull();
    // The address may sign up again.
    const again = await signUpVerified(dashboard);
    expect((await again.get('/dashboard')).status).toBe(200);
  });
});
