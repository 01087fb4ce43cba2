import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

const LONG = `Project ${'n'.repeat(112)}`;

/** The `<input>` of the named field on a page. */
function inputOf(html: string, name: string): string {
  return new RegExp(`<input id="field-${name}"[^>]*>`).exec(html)?.[0] ?? '';
}

describe('names with a length limit', () => {
  it('shows a counter on the field and no maxlength, which would cut a paste without a word', async () => {
    const browser = await signUpVerified(dashboard);
    const html = await (await browser.get('/dashboard')).text();
    const input = inputOf(html, 'name');
    expect(input).toContain('data-limit="100"');
    expect(input).toContain('aria-describedby="field-name-count"');
    expect(input).not.toContain('maxlength');
    expect(html).toContain('<p class="hint counter" id="field-name-count">0 / 100</p>');
  });

  it('refuses a project name over 100 characters whole, says why, and keeps it in the field', async () => {
    const browser = await signUpVerified(dashboard);
    const response = await browser.post('/dashboard/projects', { name: LONG });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('This is 120 characters long: shorten it to 100 or fewer.');
    expect(inputOf(html, 'name')).toContain(`value="${LONG}"`);
    expect(html).toContain('<p class="hint counter over" id="field-name-count">120 / 100: 20 too many</p>');
    expect((await (await browser.get('/dashboard')).text()).includes(LONG.slice(0, 100))).toBe(false);
  });

  it('refuses a key name, a rename and a deletion’s confirmation over the limit the same way', async () => {
    const browser = await signUpVerified(dashboard);
    const created = await browser.post('/dashboard/projects', { name: 'Shop' });
    const id = (created.headers.get('Location') ?? '').split('/').pop()!;
    const key = await browser.post(`/dashboard/projects/${id}/keys`, { name: LONG, mode: 'live' });
    expect(key.status).toBe(400);
    expect(await key.text()).toContain('This is 120 characters long: shorten it to 100 or fewer.');
    const rename = await browser.post(`/dashboard/projects/${id}/rename`, { name: LONG });
    expect(rename.status).toBe(400);
    expect(await rename.text()).toContain('This is 120 characters long: shorten it to 100 or fewer.');
    const deletion = await browser.post(`/dashboard/projects/${id}/delete`, { name: LONG });
    expect(deletion.status).toBe(400);
    const html = await deletion.text();
    expect(html).toContain('This is 120 characters long: shorten it to 100 or fewer.');
    expect(inputOf(html, 'name')).toContain(`value="${LONG}"`);
    expect(html).toContain('<p class="hint counter over" id="field-name-count">120 / 100: 20 too many</p>');
    expect((await dashboard.store.getProject(id))?.name).toBe('Shop');
  });
});

/** The pages with free-text fields, as their owner (or an operator) sees them. */
async function pagesWithFields() {
  const browser = await signUpVerified(dashboard);
  const operator = await signUpVerified(dashboard, 'op@example.com');
  const found = await dashboard.dashboardStore.findAccountByEmail('op@example.com');
  await dashboard.dashboardStore.setAccountOperator({ id: found!.account.id, operator: true });
  const created = await browser.post('/dashboard/projects', { name: 'Shop' });
  const id = (created.headers.get('Location') ?? '').split('/').pop()!;
  const endpoint = await dashboard.tidings.admin.createWebhookEndpoint({
    projectId: id,
    url: 'https://example.com/hooks',
    events: ['*'],
    description: null,
  });
  const read = async (who: typeof browser, path: string) => {
    const response = await who.get(path);
    expect(response.status, path).toBe(200);
    return response.text();
  };
  return {
    '/dashboard': await read(browser, '/dashboard'),
    keys: await read(browser, `/dashboard/projects/${id}`),
    settings: await read(browser, `/dashboard/projects/${id}/settings`),
    'project delete': await read(browser, `/dashboard/projects/${id}/delete`),
    log: await read(browser, `/dashboard/projects/${id}/log`),
    recipients: await read(browser, `/dashboard/projects/${id}/recipients`),
    webhooks: await read(browser, `/dashboard/projects/${id}/webhooks`),
    'webhook edit': await read(browser, `/dashboard/projects/${id}/webhooks/${endpoint.id}/edit`),
    security: await read(browser, '/dashboard/account/security'),
    operator: await read(operator, '/dashboard/operator'),
    suspension: await read(operator, `/dashboard/operator/projects/${id}/suspend`),
  };
}

/** Every field a person types free text into (no email, password, number, date or hidden field). */
function freeTextFields(html: string): string[] {
  const inputs = [...html.matchAll(/<input [^>]*>/g)]
    .map((match) => match[0])
    .filter((tag) => /type="(text|search|url)"/.test(tag) || !/type="/.test(tag))
    .filter((tag) => !tag.includes('inputmode="numeric"'));
  return [...inputs, ...[...html.matchAll(/<textarea [^>]*>/g)].map((match) => match[0])];
}

describe('every field with a length limit', () => {
  const LIMITED: [page: string, id: string, limit: number][] = [
    ['/dashboard', 'field-name', 100],
    ['keys', 'field-name', 100],
    ['settings', 'field-name', 100],
    ['project delete', 'field-name', 100],
    ['log', 'filter-recipient', 128],
    ['recipients', 'lookup-recipient', 128],
    ['webhooks', 'field-url', 2048],
    ['webhooks', 'field-description', 200],
    ['webhook edit', 'field-url', 2048],
    ['webhook edit', 'field-description', 200],
    ['security', 'field-name', 60],
    ['operator', 'field-q', 200],
    ['suspension', 'field-reason', 500],
  ];

  it('shows its limit as a counter the page renders, and carries no maxlength', async () => {
    const pages: Record<string, string> = await pagesWithFields();
    for (const [page, id, limit] of LIMITED) {
      const html = pages[page]!;
      const field = new RegExp(`<(input|textarea) id="${id}"[^>]*>`).exec(html)?.[0] ?? '';
      expect(field, `${page} ${id}`).toContain(`data-limit="${limit}"`);
      expect(field, `${page} ${id}`).toContain(`data-counter="${id}-count"`);
      expect(field, `${page} ${id}`).toMatch(new RegExp(`aria-describedby="[^"]*${id}-count`));
      expect(field, `${page} ${id}`).not.toContain('maxlength');
      expect(html, `${page} ${id}`).toMatch(new RegExp(`<p class="hint counter" id="${id}-count">\\d+ / ${limit}</p>`));
    }
    // No free-text field of these pages is left without its limit shown.
    for (const [page, html] of Object.entries(pages)) {
      for (const field of freeTextFields(html)) expect(field, page).toContain('data-limit=');
    }
  });

  it('refuses a recipient filter over its limit in plain words, keeping what was typed', async () => {
    const browser = await signUpVerified(dashboard);
    const created = await browser.post('/dashboard/projects', { name: 'Shop' });
    const id = (created.headers.get('Location') ?? '').split('/').pop()!;
    const long = 'u'.repeat(130);
    const refused = await browser.get(`/dashboard/projects/${id}/log?recipient=${long}`);
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('This is 130 characters long: shorten it to 128 or fewer.');
    expect(html).toContain(`value="${long}"`);
    expect(html).toContain('<p class="hint counter over" id="filter-recipient-count">130 / 128: 2 too many</p>');
    expect(html).not.toContain('VALIDATION_FAILED');
    const spaced = await browser.get(`/dashboard/projects/${id}/log?recipient=${encodeURIComponent('user 1')}`);
    expect(spaced.status).toBe(400);
    expect(await spaced.text()).toContain('A recipient has only letters, digits and _ - . : @ (no spaces).');
    expect((await browser.get(`/dashboard/projects/${id}/log?recipient=user_1`)).status).toBe(200);
  });
});
