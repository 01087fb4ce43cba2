// The inbox (docs/inbox.md) of one recipient with INBOX_ITEMS items, on SQLite and PostgreSQL, in
// one run: this process's CPU time per read, and how long a read on one device takes to reach
// another.
//
// - A page of 20 items (`POST /v1/browsers/{id}/inbox` through `tidings.fetch`: the browser's key
//   check, the store's read, the JSON answer), against the bare read of the same rows: one SQL
//   statement (the notifications of the recipient, newest first, 20 of them) on the same
//   database, without Tidings.
// - The counts (`POST /v1/browsers/{id}/inbox/counts`: one counter row), against the bare count
//   an app would run without counters: the unread notifications of the recipient, counted in SQL.
// - Mark→other device: a browser marks an item read (then unread, and so on) through its
//   endpoint; the time until the `inbox` event reaches the stream of the recipient's other
//   browser, open in this process. Baseline: send→event, the time a notification takes from the
//   start of its send to the same stream, in the same run.
//
// - What the inbox costs a send: CPU per send on SQLite with the trigger that makes the item,
//   against the same sends on a file without it.
//
// Run after `npm run build`: node bench/inbox.js (BENCH_POSTGRES_URL, BENCH_INBOX_ITEMS).
import { join } from 'node:path';
import { createTidings, silentLogger } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import { createSqliteStore } from '@tidings/store-sqlite';
import Database from 'better-sqlite3';
import pg from 'pg';
import { cleanup, envNumber, formatMs, highLimits, percentile, report, row, tempDir } from './lib/common.js';
import { benchPostgresUrl, postgresBenchDb } from './lib/setup.js';

const ITEMS = envNumber('BENCH_INBOX_ITEMS', 10_000);
const READS = 400;
const MARKS = 200;
const RECIPIENT = 'reader';

/** Tidings over `store`, with a key, two browsers of the recipient (one with an open stream) and ITEMS items. */
async function instance(store) {
  const tidings = createTidings({
    store,
    project: 'bench-inbox',
    logger: silentLogger,
    sweepIntervalMs: 0,
    limits: highLimits,
  });
  const project = await tidings.project();
  const key = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key;
  const { token } = await tidings.createConnectToken({ recipient: RECIPIENT });
  const registered = await tidings.fetch(new Request(`http://tidings.bench/v1/connect/${token}`, { method: 'POST' }));
  const browser = await registered.json();
  const ids = [];
  for (let start = 0; start < ITEMS; start += 500) {
    const batch = Array.from({ length: Math.min(500, ITEMS - start) }, (_, i) =>
      tidings.notifications.send({ recipient: RECIPIENT, title: `Item ${start + i}`, body: 'A line of text' }),
    );
    for (const sent of await Promise.all(batch)) ids.push(sent.notification.id);
  }
  // Opened after the items are sent: a new browser, with none of them pending.
  const stream = await openStream(tidings);
  return { tidings, store, project, key, stream, browser, ids };
}

/** The recipient's event stream, read through `tidings.fetch`: it resolves the waiters of each event. */
async function openStream(tidings) {
  const { token } = await tidings.createConnectToken({ recipient: RECIPIENT });
  const response = await tidings.fetch(new Request(`http://tidings.bench/v1/connect/${token}`));
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const waiters = [];
  let pending = '';
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      pending += decoder.decode(value, { stream: true });
      const frames = pending.split('\n\n');
      pending = frames.pop();
      for (const frame of frames) {
        if (frame.includes('event: ready')) ready();
        for (const waiter of waiters.splice(0)) waiter(frame);
      }
    }
  })().catch(() => {});
  await isReady;
  /** Resolves with the time of the next frame that matches; fails after 10 s without one. */
  const next = (match) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching event within 10 s')), 10_000);
      const wait = (frame) => {
        if (!match(frame)) return waiters.push(wait);
        clearTimeout(timer);
        resolve(performance.now());
      };
      waiters.push(wait);
    });
  return { next, cancel: () => reader.cancel() };
}

function browserRequest(subject, path, body) {
  const { browser } = subject;
  return subject.tidings.fetch(
    new Request(`http://tidings.bench/v1/browsers/${browser.browser_id}/inbox${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ browser_secret: browser.browser_secret, ...body }),
    }),
  );
}

/**
 * CPU milliseconds of this process per call of `once`, over READS calls after 50 unmeasured; its
 * `wall` milliseconds per call too (on PostgreSQL the database's own work shows only there).
 */
async function cpuPerCall(once) {
  await once(true);
  for (let i = 0; i < 50; i++) await once();
  const before = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < READS; i++) await once();
  const wall = (performance.now() - started) / READS;
  const used = process.cpuUsage(before);
  return Object.assign(new Number((used.user + used.system) / 1000 / READS), { wall });
}

/** Mark→event on the other browser's stream, and send→event, in milliseconds (p50, p99). */
async function latencies(subject) {
  const marks = [];
  const sends = [];
  const item = subject.ids[subject.ids.length - 1];
  for (let i = 0; i < MARKS; i++) {
    const arrived = subject.stream.next((frame) => frame.startsWith('event: inbox'));
    const started = performance.now();
    const answer = await browserRequest(subject, '/mark', { action: i % 2 === 0 ? 'read' : 'unread', ids: [item] });
    if (answer.status !== 200) throw new Error(`mark answered ${answer.status}: ${await answer.text()}`);
    await answer.arrayBuffer();
    marks.push((await arrived) - started);
    const title = `Latency ${i}`;
    const delivered = subject.stream.next((frame) => frame.includes(`"title":"${title}"`));
    const sentAt = performance.now();
    await subject.tidings.notifications.send({ recipient: RECIPIENT, title });
    sends.push((await delivered) - sentAt);
  }
  const sorted = (values) => values.sort((a, b) => a - b);
  return { marks: sorted(marks), sends: sorted(sends) };
}

async function measure(name, subject, bare) {
  const answered = (path, body) => async (check) => {
    const answer = await browserRequest(subject, path, body);
    if (check && answer.status !== 200) throw new Error(`${path || 'list'} answered ${answer.status}`);
    return answer.arrayBuffer();
  };
  const page = await cpuPerCall(answered('', { limit: 20 }));
  const { store } = subject;
  const storePage = await cpuPerCall(async () =>
    JSON.stringify(
      await store.listInbox({
        projectId: subject.project.id,
        recipient: RECIPIENT,
        unread: false,
        archived: false,
        limit: 20,
        startingAfter: null,
      }),
    ),
  );
  const barePage = await cpuPerCall(bare.page);
  const counts = await cpuPerCall(answered('/counts', {}));
  const bareCount = await cpuPerCall(bare.count);
  report(
    row({
      benchmark: `inbox page of 20 of ${ITEMS} items (${name})`,
      figure: Number(page),
      figureText: `${page.toFixed(3)} ms CPU`,
      baseline: Number(barePage),
      baselineText: `${barePage.toFixed(3)} ms CPU`,
      baselineName: 'bare SQL read of the same rows',
      unit: 'ms',
      target: null,
      note:
        `the store's read alone (listInbox: the page and the counts, no HTTP): ${storePage.toFixed(3)} ms CPU, ` +
        `${(storePage / barePage).toFixed(2)}× the bare read; wall per call: page ${page.wall.toFixed(3)} ms, ` +
        `listInbox ${storePage.wall.toFixed(3)} ms, bare ${barePage.wall.toFixed(3)} ms`,
    }),
  );
  report(
    row({
      benchmark: `inbox counts of ${ITEMS} items (${name})`,
      figure: Number(counts),
      figureText: `${counts.toFixed(3)} ms CPU`,
      baseline: Number(bareCount),
      baselineText: `${bareCount.toFixed(3)} ms CPU`,
      baselineName: 'bare SQL count of the unread',
      unit: 'ms',
      target: null,
      note: `wall per call: counts ${counts.wall.toFixed(3)} ms, bare count ${bareCount.wall.toFixed(3)} ms`,
    }),
  );
  const { marks, sends } = await latencies(subject);
  report(
    row({
      benchmark: `inbox mark→other device p50 (${name})`,
      figure: percentile(marks, 0.5),
      figureText: formatMs(percentile(marks, 0.5)),
      baseline: percentile(sends, 0.5),
      baselineText: formatMs(percentile(sends, 0.5)),
      baselineName: 'send→event p50',
      unit: 'ms',
      target: null,
      note: `p99 mark→event ${formatMs(percentile(marks, 0.99))}, send→event ${formatMs(percentile(sends, 0.99))}; ${MARKS} of each`,
    }),
  );
}

async function sqlite() {
  const dir = tempDir('inbox');
  const path = join(dir, 'tidings.db');
  const store = createSqliteStore({ path });
  const subject = await instance(store);
  const db = new Database(path, { readonly: true });
  const pageSql = db.prepare(
    `SELECT id, title, body, url, icon, tag, data, created_at FROM notifications
      WHERE project_id = ? AND recipient = ? ORDER BY id DESC LIMIT 20`,
  );
  const countSql = db.prepare(
    `SELECT count(*) FROM notifications AS n JOIN inbox_items AS i ON i.notification_id = n.id
      WHERE n.project_id = ? AND n.recipient = ? AND i.read_at IS NULL`,
  );
  const projectId = subject.project.id;
  await measure('SQLite', subject, {
    page: async () => JSON.stringify(pageSql.all(projectId, RECIPIENT)),
    count: async () => countSql.pluck().get(projectId, RECIPIENT),
  });
  await subject.stream.cancel();
  db.close();
  await subject.tidings.close();
  await store.close();
}

async function postgres() {
  const url = postgresBenchDb();
  const schema = new URL(url).searchParams.get('schema');
  const store = await createPostgresStore({ connectionString: url });
  const subject = await instance(store);
  const client = new pg.Client({ connectionString: benchPostgresUrl });
  await client.connect();
  const projectId = subject.project.id;
  await measure('PostgreSQL', subject, {
    page: async () =>
      JSON.stringify(
        (
          await client.query({
            name: 'bare_page',
            text: `SELECT id, title, body, url, icon, tag, data, created_at FROM "${schema}".notifications
                    WHERE project_id = $1 AND recipient = $2 ORDER BY id DESC LIMIT 20`,
            values: [projectId, RECIPIENT],
          })
        ).rows,
      ),
    count: async () =>
      (
        await client.query({
          name: 'bare_count',
          text: `SELECT count(*) FROM "${schema}".notifications AS n JOIN "${schema}".inbox_items AS i
                  ON i.notification_id = n.id WHERE n.project_id = $1 AND n.recipient = $2 AND i.read_at IS NULL`,
          values: [projectId, RECIPIENT],
        })
      ).rows[0],
  });
  await subject.stream.cancel();
  await client.end();
  await subject.tidings.close();
  await store.close();
}

/**
 * What the inbox costs a send on SQLite: this process's CPU per send (the store is in process),
 * with the trigger that makes each live notification an item, and on a file whose trigger was
 * dropped, in alternating rounds; the median round counts.
 */
async function sendCost() {
  const SENDS = 3000;
  const runs = { with: [], without: [] };
  for (let round = 0; round < 3; round++) {
    for (const variant of ['with', 'without']) {
      const path = join(tempDir(`inbox-send-${variant}`), 'tidings.db');
      const store = createSqliteStore({ path });
      const tidings = createTidings({
        store,
        project: 'bench-send',
        logger: silentLogger,
        sweepIntervalMs: 0,
        limits: highLimits,
      });
      await tidings.project();
      if (variant === 'without') {
        const db = new Database(path);
        db.exec('DROP TRIGGER inbox_item_of_live_notification');
        db.close();
      }
      const { token } = await tidings.createConnectToken({ recipient: RECIPIENT });
      await tidings.fetch(new Request(`http://tidings.bench/v1/connect/${token}`, { method: 'POST' }));
      const sendMany = async (count) => {
        for (let start = 0; start < count; start += 50) {
          await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              tidings.notifications.send({ recipient: RECIPIENT, title: `n${start + i}` }),
            ),
          );
        }
      };
      await sendMany(500);
      const before = process.cpuUsage();
      await sendMany(SENDS);
      const used = process.cpuUsage(before);
      runs[variant].push((used.user + used.system) / 1000 / SENDS);
      await tidings.close();
      await store.close();
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[1];
  report(
    row({
      benchmark: 'send with its inbox item (SQLite, CPU per send)',
      figure: median(runs.with),
      figureText: `${median(runs.with).toFixed(3)} ms`,
      baseline: median(runs.without),
      baselineText: `${median(runs.without).toFixed(3)} ms`,
      baselineName: 'the same send without the inbox trigger',
      unit: 'ms',
      target: null,
      note: `rounds with: ${runs.with.map((v) => v.toFixed(3)).join(', ')}; without: ${runs.without.map((v) => v.toFixed(3)).join(', ')}`,
    }),
  );
}

try {
  await sendCost();
  await sqlite();
  await postgres();
} finally {
  await cleanup();
}
