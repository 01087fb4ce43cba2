import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { type ServeProcess, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { until } from './harness.js';

/**
 * A new page of `context` signed in as `email` with a one-time code that the CLI makes on the
 * server's database (`tidings account sign-in-code`), as a person types it on the code page.
 */
export async function signInWithCode(
  context: BrowserContext,
  server: { url: string },
  db: string,
  email: string,
): Promise<Page> {
  const { code } = await tidingsJson<{ code: string }>(['account', 'sign-in-code', '--email', email, '--db', db]);
  const page = await context.newPage();
  await page.goto(`${server.url}/dashboard/login/code`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Code').fill(code);
  await submit(page, 'Sign in');
  return page;
}

/** The newest code the development mailer printed on the server's stderr for `email`. */
export async function mailedCode(server: ServeProcess, email: string, after = 0): Promise<string> {
  const pattern = new RegExp(`^\\[mail\\] to=${email.replace(/[.]/g, '\\.')} subject="[^"]*" code=(\\d{6})$`, 'gm');
  const codes = await until(
    async () => [...server.stderr().matchAll(pattern)].map((match) => match[1]!),
    (found) => found.length > after,
    `a mail to ${email}`,
  );
  return codes[codes.length - 1]!;
}

/** Every response body a context received, and every console message of its pages. */
export function recordContext(context: BrowserContext) {
  const bodies: { url: string; status: number; headers: string; body: string }[] = [];
  const pending: Promise<void>[] = [];
  const console: string[] = [];
  context.on('response', (response: Response) => {
    // An event stream (the SDK's, the live view's) ends only with its page, so its body is not
    // waited for; its URL and headers are still recorded.
    const streaming = (response.headers()['content-type'] ?? '').startsWith('text/event-stream');
    pending.push(
      (streaming ? Promise.resolve(Buffer.alloc(0)) : response.body())
        .then((body) => body.toString('utf8'))
        .catch(() => '')
        .then(async (body) => {
          bodies.push({
            url: response.url(),
            status: response.status(),
            headers: JSON.stringify(await response.allHeaders().catch(() => ({}))),
            body,
          });
        }),
    );
  });
  context.on('page', (page) => watchConsole(page, console));
  return {
    console,
    /** The responses whose body, headers or URL hold `secret`, once every body has been read. */
    async holding(secret: string) {
      await Promise.all(pending);
      return bodies.filter(
        (entry) => entry.body.includes(secret) || entry.headers.includes(secret) || entry.url.includes(secret),
      );
    },
  };
}

function watchConsole(page: Page, into: string[]): void {
  page.on('console', (message) => into.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => into.push(`pageerror: ${error.message}`));
}

/** Console lines that report a Content-Security-Policy violation. */
export function cspViolations(lines: string[]): string[] {
  return lines.filter((line) => /Content Security Policy|Refused to (load|execute|apply|connect)/i.test(line));
}

/** axe's serious and critical violations on the page as it stands. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${page.url()}: ${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

/** Submits the page's form that holds `button`, and answers the response of the navigation. */
export async function submit(page: Page, button: string): Promise<Response | null> {
  const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: button }).click()]);
  return response;
}

/** Occurrences of `needle` in `haystack`. */
export function countOf(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** Where the dashboard's browser tests put their screenshots. */
export const DASHBOARD_ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));

/** The widths every dashboard page is checked and screenshotted at: a laptop and a phone. */
export const DASHBOARD_WIDTHS = [1280, 390] as const;

/** How far the page reaches past the viewport's right edge, in CSS pixels (0 when it fits). */
export function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * At each of {@link DASHBOARD_WIDTHS}: how far the page reaches past the screen, its serious axe
 * findings (unless `axe` is false: axe is a script, and cannot run where JavaScript is off), and
 * a screenshot `NAME-WIDTH.png` in {@link DASHBOARD_ARTIFACTS}; `reload` first when asked. Ends
 * at 1280 px. Returns the findings, none when the page holds.
 */
export async function layoutFindings(
  page: Page,
  name: string,
  options: { axe?: boolean; reload?: boolean } = {},
): Promise<string[]> {
  await mkdir(DASHBOARD_ARTIFACTS, { recursive: true });
  const findings: string[] = [];
  for (const width of DASHBOARD_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    if (options.reload) await page.reload();
    const past = await overflow(page);
    if (past > 0) findings.push(`${name} at ${width} px reaches ${past} px past the screen`);
    if (options.axe ?? true) findings.push(...(await seriousAxeViolations(page)));
    await page.screenshot({ path: join(DASHBOARD_ARTIFACTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return findings;
}

/**
 * Signs up in the page as a new customer does: the form, the mailed code, then a first project
 * named `project`, whose page the browser is left on.
 */
export async function signUpWithProject(
  page: Page,
  server: ServeProcess,
  account: { email: string; password: string },
  project = 'Shop',
): Promise<void> {
  await page.goto(`${server.url}/dashboard/signup`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await submit(page, 'Create account');
  await page.getByLabel('Verification code').fill(await mailedCode(server, account.email));
  await submit(page, 'Verify');
  await page.getByLabel('Project name').fill(project);
  await submit(page, 'Create project');
}

/** A verified account made with the CLI in the database at `db`: its id. */
export async function verifiedAccount(db: string, email = 'ada@example.com'): Promise<string> {
  return (await tidingsJson<{ id: string }>(['account', 'create', '--email', email, '--verified', '--db', db])).id;
}
