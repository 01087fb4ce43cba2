import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTidings, type Tidings, type TidingsError } from '@tidings/core';
import { webhooks } from '@tidings/core/node';
import { quietPeriod, until } from '@tidings/core/testing';
import { createSqliteStore } from '@tidings/store-sqlite';
import {
  assertBuilt,
  createProjectWithKeys,
  runTidings,
  type ServeProcess,
  startServe,
  tempDir,
  tidingsJson,
} from '@tidings/test-support/cli-process.js';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type TestWebhookReceiver,
} from '@tidings/test-support/webhook-receiver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Webhooks end to end: `tidings serve` processes deliver the events of real sends, receipts and
 * browsers to a receiver of the tests' own on 127.0.0.1, which verifies every request with the
 * official `standardwebhooks` library and the endpoint's secret, as a customer's back end would.
 */
const SERVE_FLAGS = ['--webhooks-allow-http', '--webhooks-allow-private'];

let temp: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let configFile: string;
let projectId: string;
let liveKey: string;
let testKey: string;
let receiver: TestWebhookReceiver;
let server: ServeProcess | undefined;
const others: ServeProcess[] = [];

function serve(): Promise<ServeProcess> {
  return startServe(['--db', db, '--port', '0', '--config', configFile, ...SERVE_FLAGS]);
}

beforeAll(async () => {
  assertBuilt();
  temp = await tempDir();
  db = join(temp.dir, 'tidings.db');
  ({ projectId, liveKey, testKey } = await createProjectWithKeys(db));
  receiver = await startWebhookReceiver({ closeAfterTest: false });
  configFile = join(temp.dir, 'tidings.json');
  // The tests poll with one key; browsers registered by a poll stay connected through the file.
  await writeFile(
    configFile,
    JSON.stringify({ limits: { perKey: 100_000, perProject: 100_000, perAccount: 100_000 }, staleBrowserMs: 600_000 }),
  );
  server = await serve();
}, 60_000);

afterAll(async () => {
  for (const process of [server, ...others]) {
    if (process && process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGTERM');
    await process?.exited;
  }
  await receiver?.close();
  await temp?.remove();
});

/** The admin API over a database that `tidings serve` has open, as a back end's own process has it. */
async function withAdmin<T>(file: string, use: (admin: Tidings['admin']) => Promise<T>, allowHttp = true): Promise<T> {
  const store = createSqliteStore({ path: file });
  const tidings = createTidings({ store, sweepIntervalMs: 0, jobs: false, features: [webhooks({ allowHttp })] });
  try {
    return await use(tidings.admin);
  } finally {
    await tidings.close();
    await store.close();
  }
}

/** An endpoint named `name` at the receiver, made with the CLI; the receiver verifies with its secret. */
async function endpoint(
  name: string,
  events: string[],
  options: { file?: string; project?: string; url?: string } = {},
) {
  const created = await createEndpoint(
    options.project ?? projectId,
    options.url ?? receiver.endpointUrl(name),
    events,
    {
      file: options.file,
    },
  );
  receiver.setSecret(name, created.secret);
  return created;
}

/** `tidings webhook create`, which takes `http:` URLs under `TIDINGS_WEBHOOKS_ALLOW_HTTP=1`. */
async function createEndpoint(project: string, url: string, events: string[], options: { file?: string } = {}) {
  const result = await runTidings(
    [
      'webhook',
      'create',
      '--project',
      project,
      '--url',
      url,
      '--events',
      events.join(','),
      '--db',
      options.file ?? db,
      '--json',
    ],
    { TIDINGS_WEBHOOKS_ALLOW_HTTP: '1' },
  );
  if (result.code !== 0) throw new Error(`webhook create exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout) as { id: string; secret: string };
}

function api(path: string, init: { method?: string; json?: unknown; key?: string | null; url?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers.Authorization = `Bearer ${init.key ?? liveKey}`;
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${init.url ?? server!.url}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

/** A browser of `recipient` registered by a poll (it stays connected without a stream). */
async function browser(recipient: string, key = liveKey) {
  const token = (await (await api('/v1/connect-tokens', { json: { recipient }, key })).json()).token as string;
  const registered = await api(`/v1/connect/${token}`, { method: 'POST', key: null });
  expect(registered.status).toBe(201);
  const body = await registered.json();
  return { id: body.browser_id as string, secret: body.browser_secret as string };
}

async function send(recipient: string, key = liveKey) {
  const response = await api('/v1/notifications', { json: { recipient, title: 'Hello' }, key });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; attempts: { id: string; browser_id: string }[] };
}

async function receipt(from: { id: string; secret: string }, events: { type: string; attempt_id: string }[]) {
  const response = await api('/v1/events', {
    key: null,
    json: { browser_id: from.id, browser_secret: from.secret, events },
  });
  expect(response.status).toBe(202);
}

async function read(notificationId: string) {
  const response = await api(`/v1/notifications/${notificationId}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown> & { attempts: Record<string, unknown>[] };
}

/** The messages of an endpoint, as `tidings webhook messages --json` lists them (newest first). */
function messagesOf(endpointId: string, file = db) {
  return tidingsJson<{ id: string; event_type: string; status: string; attempts: number }[]>([
    'webhook',
    'messages',
    endpointId,
    '--db',
    file,
  ]);
}

const aboutNotification = (id: string) => (message: ReceivedWebhook) =>
  message.type === 'notification.completed'
    ? message.data.id === id
    : message.type === 'notification.attempt.updated' && message.data.notification_id === id;

/** Waits for the receiver to hold `count` messages of `name` that match. */
function receivedOf(name: string, count: number, match: (message: ReceivedWebhook) => boolean = () => true) {
  return until(() => receiver.receivedBy(name).filter(match), {
    accept: (messages) => messages.length >= count,
    what: `${count} messages at ${name}`,
    timeoutMs: 20_000,
  });
}

// Retries, CLI processes and restarts take seconds each on a loaded machine.
describe('tidings serve delivers webhooks', { timeout: 60_000 }, () => {
  it('sends signed events of a browser and a delivery: connected, attempt updated (delivered, displayed), completed, disconnected', async () => {
    const created = await endpoint('main', ['*']);
    const alice = await browser('alice');
    const [connected] = await receivedOf('main', 1);
    expect(connected).toMatchObject({
      type: 'browser.connected',
      data: { browser_id: alice.id, recipient: 'alice', connected_at: expect.any(String) },
      signatures: 1,
    });
    expect(connected!.id).toMatch(/^msg_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(connected!.headers['content-type']).toBe('application/json');
    expect(connected!.headers['user-agent']).toBe('Tidings');
    // `webhook-timestamp` is the time of the request; the body's `timestamp` that of the change.
    expect(Math.abs(connected!.sentAtSeconds * 1000 - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(connected!.timestamp)).toBeLessThanOrEqual(connected!.sentAtSeconds * 1000 + 1000);

    const sent = await send('alice');
    const attemptId = sent.attempts[0]!.id;
    await receipt(alice, [{ type: 'delivered', attempt_id: attemptId }]);
    const afterDelivered = await receivedOf('main', 2, aboutNotification(sent.id));
    const readDelivered = await read(sent.id);
    expect(afterDelivered.map((message) => message.type)).toEqual([
      'notification.attempt.updated',
      'notification.completed',
    ]);
    // The attempt and the notification exactly as the API shows them.
    expect(afterDelivered[0]!.data).toEqual({
      notification_id: sent.id,
      recipient: 'alice',
      attempt: readDelivered.attempts[0],
    });
    expect(afterDelivered[0]!.data.attempt).toMatchObject({ id: attemptId, status: 'delivered', displayed_at: null });
    expect(afterDelivered[1]!.data).toEqual(readDelivered);
    expect(readDelivered.status).toBe('completed');

    await receipt(alice, [{ type: 'displayed', attempt_id: attemptId }]);
    const all = await receivedOf('main', 3, aboutNotification(sent.id));
    expect(all[2]).toMatchObject({ type: 'notification.attempt.updated' });
    expect(all[2]!.data.attempt).toEqual((await read(sent.id)).attempts[0]);
    expect(all[2]!.data.attempt).toMatchObject({ status: 'delivered', displayed_at: expect.any(String) });

    const disconnected = await api(`/v1/browsers/${alice.id}/disconnect`, {
      key: null,
      json: { browser_secret: alice.secret },
    });
    expect(disconnected.status).toBe(204);
    const [gone] = await receivedOf('main', 1, (message) => message.type === 'browser.disconnected');
    expect(gone!.data).toEqual({
      browser_id: alice.id,
      recipient: 'alice',
      disconnected_at: expect.any(String),
      reason: 'disconnected',
    });

    // Each message once, each with an id of its own; the log says so too.
    const ids = receiver.receivedBy('main').map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    const logged = await messagesOf(created.id);
    expect(logged.map((message) => message.id).sort()).toEqual([...ids].sort());
    expect(logged.every((message) => message.status === 'delivered' && message.attempts === 1)).toBe(true);
    expect(receiver.rejected).toEqual([]);
  });

  it('sends the messages of each notification in order while status changes come quickly to a slow receiver', async () => {
    await endpoint('order', ['notification.attempt.updated', 'notification.completed']);
    const bob = await browser('bob');
    const sends = [await send('bob'), await send('bob'), await send('bob'), await send('bob')];
    // Each answer takes a while, so that messages sent together would overtake one another.
    receiver.script(
      'order',
      Array.from({ length: 20 }, (_, n) => ({ status: 204, delayMs: [120, 10, 60, 0, 200][n % 5]! })),
    );
    const steps = ['delivered', 'displayed', 'clicked', 'dismissed'];
    for (const step of steps) {
      await Promise.all(sends.map((sent) => receipt(bob, [{ type: step, attempt_id: sent.attempts[0]!.id }])));
    }
    for (const sent of sends) {
      const messages = await receivedOf('order', steps.length + 1, aboutNotification(sent.id));
      const updates = messages.filter((message) => message.type === 'notification.attempt.updated');
      // Every update shows one more receipt than the one before it.
      const receipts = updates.map(
        (message) =>
          ['delivered_at', 'displayed_at', 'clicked_at', 'dismissed_at'].filter(
            (field) => (message.data.attempt as Record<string, unknown>)[field] !== null,
          ).length,
      );
      expect(receipts, sent.id).toEqual([1, 2, 3, 4]);
      // The completion follows the update that made the attempt final.
      expect(messages.map((message) => message.type).indexOf('notification.completed'), sent.id).toBe(1);
    }
    expect(receiver.rejected).toEqual([]);
  });

  it('retries after a 500 with the same webhook-id, and the log shows both requests', async () => {
    const created = await endpoint('retry', ['browser.connected']);
    receiver.script('retry', [{ status: 500, body: 'try again' }]);
    await browser('carol');
    const [message] = await until(() => receiver.receivedBy('retry'), {
      accept: (messages) => messages.length === 1,
      what: 'the message after its retry',
      timeoutMs: 20_000,
    });
    const requests = receiver.requests.filter((request) => request.endpoint === 'retry');
    expect(requests.map((request) => [request.id, request.answer])).toEqual([
      [message!.id, 500],
      [message!.id, 204],
    ]);
    const [logged] = await until(() => messagesOf(created.id), {
      accept: (messages) => messages[0]?.status === 'delivered',
      what: 'the message delivered in the log',
    });
    expect(logged).toMatchObject({ id: message!.id, event_type: 'browser.connected', attempts: 2 });
    const detail = await withAdmin(db, (admin) => admin.getWebhookMessage(message!.id));
    expect(detail.attempts.map((attempt) => [attempt.status_code, attempt.outcome, attempt.response_excerpt])).toEqual([
      [500, 'failed', 'try again'],
      [204, 'succeeded', null],
    ]);
  });

  it('waits as long as a 429 says in Retry-After, longer than the first retry would', async () => {
    await endpoint('limited', ['browser.connected']);
    receiver.script('limited', [{ status: 429, retryAfter: '7' }]);
    await browser('dave');
    await until(() => receiver.receivedBy('limited'), {
      accept: (messages) => messages.length === 1,
      what: 'the message after Retry-After',
      timeoutMs: 25_000,
    });
    const [first, second] = receiver.requests.filter((request) => request.endpoint === 'limited');
    expect([first!.answer, second!.answer]).toEqual([429, 204]);
    // Without Retry-After the first retry comes within 5 s.
    expect(second!.arrivedAt - first!.arrivedAt).toBeGreaterThanOrEqual(6_900);
  });

  it('follows no redirect: a 307 counts as a failure and the message is retried at its own URL', async () => {
    await endpoint('moved', ['browser.connected']);
    receiver.setSecret('elsewhere', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    receiver.script('moved', [{ status: 307, location: receiver.endpointUrl('elsewhere') }]);
    await browser('erin');
    await until(() => receiver.receivedBy('moved'), {
      accept: (messages) => messages.length === 1,
      what: 'the message at its own URL',
      timeoutMs: 20_000,
    });
    expect(receiver.requests.filter((request) => request.endpoint === 'moved').map((r) => r.answer)).toEqual([
      307, 204,
    ]);
    expect(receiver.requests.filter((request) => request.endpoint === 'elsewhere')).toEqual([]);
  });

  it('sends a test message on request, whatever the endpoint asks for', async () => {
    const created = await endpoint('tested', ['browser.disconnected']);
    const enqueued = await tidingsJson<{ id: string; event_type: string }>(['webhook', 'test', created.id, '--db', db]);
    expect(enqueued.event_type).toBe('webhook.test');
    const [message] = await receivedOf('tested', 1);
    expect(message).toMatchObject({ id: enqueued.id, type: 'webhook.test', data: { endpoint_id: created.id } });
    // A sample of an event type: the receiver checks it against the OpenAPI document's schema.
    const sample = await tidingsJson<{ id: string; event_type: string }>([
      'webhook',
      'test',
      created.id,
      '--type',
      'notification.completed',
      '--db',
      db,
    ]);
    const [, completed] = await receivedOf('tested', 2);
    expect(completed).toMatchObject({
      id: sample.id,
      type: 'notification.completed',
      data: { recipient: 'tidings-sample-recipient' },
    });
    expect(receiver.rejected.filter((rejected) => rejected.endpoint === 'tested')).toEqual([]);
  });

  it('resends one message and replays an endpoint’s messages, each with its own webhook-id again', async () => {
    const created = await endpoint('again', ['browser.connected']);
    const since = Date.now() - 1000;
    await browser('frank');
    await browser('frank');
    const first = await receivedOf('again', 2);
    const ids = first.map((message) => message.id);
    const resent = await tidingsJson<{ id: string; status: string }>(['webhook', 'resend', ids[0]!, '--db', db]);
    expect(resent).toMatchObject({ id: ids[0], status: 'pending' });
    await receivedOf('again', 3);
    const replayed = await tidingsJson<{ count: number }>([
      'webhook',
      'replay',
      created.id,
      '--since',
      new Date(since).toISOString(),
      '--db',
      db,
    ]);
    expect(replayed.count).toBe(2);
    const all = (await receivedOf('again', 5)).map((message) => message.id);
    // The two browsers' messages have keys of their own: the replay may send them in either order.
    expect(all.slice(0, 3)).toEqual([ids[0], ids[1], ids[0]]);
    expect(all.slice(3).sort()).toEqual([...ids].sort());
  });

  it('sends nothing for a test key’s sends, which are final at once', async () => {
    await endpoint('modes', ['notification.attempt.updated', 'notification.completed']);
    const gina = await browser('gina');
    const testSend = await send('gina', testKey);
    // A later live change of the same browser: once its events arrive, the test send's would have.
    const liveSend = await send('gina');
    await receipt(gina, [{ type: 'delivered', attempt_id: liveSend.attempts[0]!.id }]);
    await receivedOf('modes', 2, aboutNotification(liveSend.id));
    await quietPeriod(1500, 'a late message of test mode');
    expect(receiver.receivedBy('modes').filter(aboutNotification(testSend.id))).toEqual([]);
    expect(JSON.stringify(receiver.received)).not.toContain(testSend.id);
  });

  it('delivers each pending message once after kill -9 and a restart, and invents none', async () => {
    const created = await endpoint('crash', ['*']);
    // Down for now: every request is answered 503, to be retried in 8 s.
    receiver.setDown({ status: 503, retryAfter: '8' });
    const henry = await browser('henry');
    const sends = [await send('henry'), await send('henry'), await send('henry')];
    await receipt(
      henry,
      sends.map((sent) => ({ type: 'delivered', attempt_id: sent.attempts[0]!.id })),
    );
    // One connection, and an update and a completion per notification; the first message of the
    // browser and of each notification is tried, the completions wait behind the updates.
    const expected = 1 + 2 * sends.length;
    const heads = 1 + sends.length;
    const tried = await until(() => new Set(receiver.requests.filter((r) => r.endpoint === 'crash').map((r) => r.id)), {
      accept: (ids) => ids.size === heads,
      what: `${heads} messages tried`,
      timeoutMs: 20_000,
    });
    // Killed once the failures are recorded, before any retry is due.
    await until(() => messagesOf(created.id), {
      accept: (messages) =>
        messages.length === expected &&
        messages.filter((message) => tried.has(message.id)).every((message) => message.attempts === 1),
      what: 'the failed requests recorded',
    });
    server!.child.kill('SIGKILL');
    await server!.exited;
    receiver.setDown(false);
    expect(receiver.receivedBy('crash')).toEqual([]);
    server = await serve();
    // A job that was running at the kill waits for its lease to end.
    await until(() => receiver.receivedBy('crash'), {
      accept: (messages) => messages.length >= expected,
      what: `${expected} messages after the restart`,
      timeoutMs: 90_000,
    });
    await quietPeriod(3000, 'a message delivered twice');
    const delivered = receiver.receivedBy('crash');
    const ids = delivered.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Exactly the messages the log holds, all delivered now.
    const logged = await messagesOf(created.id);
    expect([...ids].sort()).toEqual(logged.map((message) => message.id).sort());
    expect(logged.every((message) => message.status === 'delivered')).toBe(true);
    expect(delivered.map((message) => message.type).sort()).toEqual(
      ['browser.connected', ...sends.flatMap(() => ['notification.attempt.updated', 'notification.completed'])].sort(),
    );
    for (const sent of sends) {
      expect(delivered.filter(aboutNotification(sent.id)).map((message) => message.type)).toEqual([
        'notification.attempt.updated',
        'notification.completed',
      ]);
    }
  }, 150_000);
});

describe('tidings serve reminds of unread inbox items', { timeout: 90_000 }, () => {
  async function sendRemind(recipient: string, seconds: number) {
    const response = await api('/v1/notifications', {
      json: { recipient, title: 'Read me', notify_unread_after: seconds },
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }
  const about = (id: string) => (message: ReceivedWebhook) =>
    (message.data as { notification_id?: string }).notification_id === id;

  it('sends notification.unread once for an item still unread, and never for one read in time', async () => {
    await endpoint('unread', ['notification.unread', 'notification.read']);
    await browser('ivy');
    const unread = await sendRemind('ivy', 2);
    const readInTime = await sendRemind('ivy', 2);
    const marked = await api('/v1/recipients/ivy/inbox/mark', { json: { action: 'read', ids: [readInTime] } });
    expect(marked.status).toBe(200);
    await receivedOf('unread', 2);
    await quietPeriod(4000, 'a second reminder');
    const received = receiver.receivedBy('unread');
    expect(received.filter(about(unread)).map((message) => message.type)).toEqual(['notification.unread']);
    expect(received.filter(about(readInTime)).map((message) => message.type)).toEqual(['notification.read']);
    expect(received.find(about(unread))!.data).toMatchObject({ recipient: 'ivy', unread_after_seconds: 2 });
  });

  it('keeps a send for the inbox of a recipient with no browser, which finds it and is reminded once', async () => {
    // The endpoint of the first test of this group: a project holds at most 10.
    const refused = await api('/v1/notifications', { json: { recipient: 'kim', title: 'Not kept' } });
    expect(refused.status).toBe(409);
    const response = await api('/v1/notifications', {
      json: { recipient: 'kim', title: 'Kept for you', keep_for_inbox: true, notify_unread_after: 2 },
    });
    expect(response.status).toBe(201);
    const sent = (await response.json()) as { id: string; attempts: unknown[]; status: string };
    expect(sent).toMatchObject({ attempts: [], status: 'completed' });
    const counts = await api('/v1/recipients/kim/inbox/counts');
    expect(await counts.json()).toMatchObject({ total: 1, unread: 1, unseen: 1 });
    await receivedOf('unread', 1, about(sent.id));
    await quietPeriod(4000, 'a second reminder');
    const reminders = receiver.receivedBy('unread').filter(about(sent.id));
    expect(reminders.map((message) => message.type)).toEqual(['notification.unread']);
    expect(reminders[0]!.data).toMatchObject({ recipient: 'kim', unread_after_seconds: 2 });
  });

  it('sends a reminder due across a kill -9 once, after the restart', async () => {
    // The endpoint of the test above: a project holds at most 10, and this file makes as many.
    await browser('jack');
    const id = await sendRemind('jack', 2);
    server!.child.kill('SIGKILL');
    await server!.exited;
    server = await serve();
    await receivedOf('unread', 1, about(id));
    await quietPeriod(4000, 'a second reminder');
    expect(
      receiver
        .receivedBy('unread')
        .filter(about(id))
        .map((message) => message.type),
    ).toEqual(['notification.unread']);
  });
});

describe('tidings serve without --webhooks-allow-private and --webhooks-allow-http', () => {
  it('refuses to send to loopback, private and link-local addresses, and to localhost', async () => {
    const file = join(temp.dir, 'ssrf.db');
    const project = (await createProjectWithKeys(file)).projectId;
    const guarded = await startServe(['--db', file, '--port', '0', '--webhooks-allow-http']);
    others.push(guarded);
    const port = new URL(receiver.url).port;
    const targets = {
      'ssrf-loopback': `http://127.0.0.1:${port}/hooks/ssrf-loopback`,
      'ssrf-private': `http://10.0.0.1:${port}/hooks/ssrf-private`,
      'ssrf-metadata': 'http://169.254.169.254/hooks/ssrf-metadata',
      'ssrf-localhost': `http://localhost:${port}/hooks/ssrf-localhost`,
    };
    const messageIds: string[] = [];
    for (const [name, url] of Object.entries(targets)) {
      const created = await createEndpoint(project, url, ['*'], { file });
      receiver.setSecret(name, created.secret);
      messageIds.push((await tidingsJson<{ id: string }>(['webhook', 'test', created.id, '--db', file])).id);
    }
    for (const id of messageIds) {
      const message = await until(() => withAdmin(file, (admin) => admin.getWebhookMessage(id)), {
        accept: (found) => found.attempts.length > 0,
        what: `the first request of ${id}`,
        timeoutMs: 20_000,
      });
      expect(message.attempts[0], id).toMatchObject({ outcome: 'refused', status_code: null });
    }
    expect(receiver.requests.filter((request) => request.endpoint.startsWith('ssrf-'))).toEqual([]);
    guarded.child.kill('SIGTERM');
    expect(await guarded.exited).toBe(0);
  }, 60_000);

  it('refuses an http: endpoint at creation with VALIDATION_FAILED', async () => {
    const refused = await runTidings([
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      receiver.endpointUrl('plain'),
      '--events',
      '*',
      '--db',
      db,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/VALIDATION_FAILED|https/);
    await expect(
      withAdmin(
        db,
        (admin) => admin.createWebhookEndpoint({ projectId, url: receiver.endpointUrl('plain'), events: ['*'] }),
        false,
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' } satisfies Partial<TidingsError>);
  });

  it('never writes a signing secret to its output, after every message it signed above', () => {
    const processes = [server, ...others].filter((process) => process !== undefined);
    expect(processes.length).toBeGreaterThan(0);
    for (const process of processes) {
      const output = process.stdout() + process.stderr();
      expect(output).toContain('listening on');
      expect(output).not.toContain('whsec_');
    }
  });
});
