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

  it('refuses a key name and a rename over the limit the same way', async () => {
    const browser = await signUpVerified(dashboard);
    const created = await browser.post('/dashboard/projects', { name: 'Shop' });
    const id = (created.headers.get('Location') ?? '').split('/').pop()!;
    const key = await browser.post(`/dashboard/projects/${id}/keys`, { name: LONG, mode: 'live' });
    expect(key.status).toBe(400);
    expect(await key.text()).toContain('This is 120 characters long: shorten it to 100 or fewer.');
    const rename = await browser.post(`/dashboard/projects/${id}/rename`, { name: LONG });
    expect(rename.status).toBe(400);
    expect(await rename.text()).toContain('This is 120 characters long: shorten it to 100 or fewer.');
    expect((await dashboard.store.getProject(id))?.name).toBe('Shop');
  });
});
