// send and read over HTTP: POST /v1/notifications and GET /v1/notifications/{id} with a live key,
// through `tidings serve` (Hono adapter, SQLite file store in WAL mode) and through the Express
// adapter, each against a bare app of the same framework measured in the same run.
//
// The recipient has one connected browser whose event stream is held open and read by a
// separate client process, so that every send records an attempt and writes it to a stream.
// Limits are configured high, but the limiter still decides every request.
//
// Run after `npm run build`: node bench/send-read.js (or `npm run bench` for everything).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchDir,
  cleanup,
  cliBin,
  formatCount,
  report,
  row,
  settings,
  startRedis,
  startServer,
  tempDir,
} from './lib/common.js';
import { compare, describe, note, openBrowserStream } from './lib/http-compare.js';
import { postgresBenchDb, prepareDatabase, sendBody } from './lib/setup.js';

/** A Tidings server of `variant` on a database of its own, with the recipient's browser stream open. */
async function startVariant(name, variant) {
  const dir = join(tempDir(`${name}-${variant.key}`), 'data');
  mkdirSync(dir);
  const setup = await prepareDatabase(dir, { recipients: 1, postgres: variant.postgres ? postgresBenchDb() : null });
  const server = await variant.start(setup);
  const client = await openBrowserStream(name, server, setup.tokens[0].token);
  const body = JSON.stringify(sendBody(setup.tokens[0].recipient));
  const sendRequest = {
    method: 'POST',
    headers: {
      authorization: `Bearer ${setup.apiKey}`,
      'content-type': 'application/json',
      // A key of its own in every request: each send claims it and stores its result in its transaction.
      ...(variant.idempotencyKey ? { 'idempotency-key': 'bench-[<id>]' } : {}),
    },
    body,
    expect: 201,
  };
  return { ...variant, server, client, setup, sendRequest };
}

/**
 * Starts one Tidings server per variant (each on its own database, with its browser's stream
 * open) and a baseline, and measures send and read of all of them in the same rounds.
 */
async function measureAdapter({ name, variants, baselineScript, baselineName, targets }) {
  const subjects = [];
  for (const variant of variants) subjects.push(await startVariant(name, variant));
  const baseline = await startServer(baselineName, join(benchDir, 'servers', baselineScript), []);
  const servers = subjects.map((subject) => subject.server);

  // send: the same path and body; each server gets requests with its own key.
  const before = await Promise.all(
    subjects.map(async (s) => (await s.client.request({ type: 'collect' }, 'collected')).events),
  );
  const send = await compareEach(baseline, subjects, servers, '/v1/notifications', (s) => s.sendRequest);
  for (const [i, subject] of subjects.entries()) {
    const after = await subject.client.request({ type: 'collect' }, 'collected');
    const result = send.subjects[i];
    const sent = result.all.reduce((sum, rps) => sum + rps, 0) * settings.duration;
    report(
      row({
        benchmark: `send (${subject.label})`,
        figure: result.rps,
        figureText: describe(result),
        baseline: send.baseline.rps,
        baselineText: describe(send.baseline),
        baselineName,
        unit: 'req/s',
        target: targets.send,
        note: note(result, send.baseline, [
          `${formatCount(after.events - before[i])} events read by the stream client for ~${formatCount(sent)} measured sends and the warm-up`,
        ]),
      }),
    );
    if (after.ended > 0) console.warn(`${name}: the browser's stream ended during the send run`);
  }

  // read: one notification of each server's project, read again and again
  for (const subject of subjects) {
    const created = await fetch(`${subject.server.url}/v1/notifications`, subject.sendRequest);
    if (created.status !== 201) throw new Error(`${name}: send for the read run answered ${created.status}`);
    subject.readPath = `/v1/notifications/${(await created.json()).id}`;
    subject.readRequest = { method: 'GET', headers: { authorization: `Bearer ${subject.setup.apiKey}` }, expect: 200 };
  }
  const read = await compareEach(baseline, subjects, servers, null, (s) => s.readRequest);
  for (const [i, subject] of subjects.entries()) {
    report(
      row({
        benchmark: `read (${subject.label})`,
        figure: read.subjects[i].rps,
        figureText: describe(read.subjects[i]),
        baseline: read.baseline.rps,
        baselineText: describe(read.baseline),
        baselineName,
        unit: 'req/s',
        target: targets.read,
        note: note(read.subjects[i], read.baseline),
      }),
    );
  }

  for (const subject of subjects) await subject.client.close();
  await baseline.stop();
  for (const subject of subjects) await subject.server.stop();
}

/**
 * {@link compare} where each subject has a request (and, for reads, a path) of its own: the
 * baseline gets the first subject's, which it answers alike whatever the key or id.
 */
function compareEach(baseline, subjects, servers, path, requestOf) {
  const targets = subjects.map((subject, i) => ({
    url: servers[i].url,
    pid: servers[i].pid,
    path: path ?? subject.readPath,
    request: requestOf(subject),
  }));
  return compare(
    { url: baseline.url, pid: baseline.pid, path: path ?? subjects[0].readPath, request: requestOf(subjects[0]) },
    targets,
  );
}

const only = process.env.BENCH_SEND_READ?.split(',');

/**
 * Starts `tidings serve` on a variant's database with its config, `extra` arguments after them;
 * `options.bin` runs another build's CLI.
 */
const tidingsServe =
  (label, extra, { bin = cliBin, ...options } = {}) =>
  (setup) =>
    startServer(label, bin, ['serve', '--db', setup.db, '--port', '0', '--config', setup.config, ...extra], options);

/** Another build's `packages/cli/dist/bin.js`, measured beside this one's default and PostgreSQL servers in the same rounds. */
const otherCli = process.env.BENCH_SEND_READ_OTHER_CLI;

try {
  console.log(
    `send/read: autocannon, ${settings.connections} connections; ${settings.warmup} s warm-up, then ${settings.rounds} rounds of ${settings.duration} s runs, the baseline and each server in turn`,
  );
  if (!only || only.includes('hono')) {
    await measureAdapter({
      name: 'hono',
      variants: [
        {
          key: 'serve',
          label: 'hono adapter, tidings serve',
          start: tidingsServe('tidings-serve', [], { cpuProf: true }),
        },
        {
          // The faster, power-loss-unsafe commit mode, for the figure it would give.
          key: 'normal',
          label: 'tidings serve --sqlite-synchronous normal',
          start: tidingsServe('tidings-serve-normal', ['--sqlite-synchronous', 'normal']),
        },
        {
          // The default server with the request log off: what logging every API request costs.
          key: 'no-request-log',
          label: 'tidings serve, request log off',
          start: (setup) => {
            const config = join(setup.config, '..', 'config-no-request-log.json');
            writeFileSync(
              config,
              JSON.stringify({ ...JSON.parse(readFileSync(setup.config, 'utf8')), requestLog: false }),
            );
            return tidingsServe('tidings-serve-no-request-log', [], { cpuProf: true })({ ...setup, config });
          },
        },
        // BENCH_SEND_READ_OTHER_CLI: the default server of another build, in the same rounds.
        ...(otherCli
          ? [
              {
                key: 'other-serve',
                label: 'other build: tidings serve',
                start: tidingsServe('other-serve', [], { bin: otherCli }),
              },
            ]
          : []),
        // BENCH_SEMI_SPACE_MB: the default server with a smaller young generation.
        ...settings.semiSpaceMb.map((mb) => ({
          key: `semi-${mb}`,
          label: `tidings serve, semi-space ${mb} MB`,
          start: tidingsServe(`tidings-serve-semi-${mb}`, [], { nodeFlags: [`--max-semi-space-size=${mb}`] }),
        })),
      ],
      baselineScript: 'bare-hono.js',
      baselineName: 'bare hono',
      targets: { send: { op: '>=', value: 0.5 }, read: { op: '>=', value: 0.6 } },
    });
  }
  if (!only || only.includes('postgres')) {
    // A schema of the run's own on BENCH_POSTGRES_URL per server; the single browser is this
    // store's worst case, every send locking that browser's row until its commit. With --redis
    // (a redis-server of the run's own), the limiter and the hub are Redis's, as with many instances.
    const redisUrl = await startRedis('send-read-redis');
    await measureAdapter({
      name: 'postgres',
      variants: [
        {
          key: 'postgres',
          label: 'tidings serve --db postgres://',
          postgres: true,
          start: tidingsServe('tidings-serve-postgres', [], { cpuProf: true }),
        },
        {
          // Every send with an Idempotency-Key of its own: a transaction per group of sends, whose
          // BEGIN and COMMIT go out with its statements (packages/store-postgres/README.md).
          key: 'postgres-key',
          label: 'tidings serve --db postgres://, Idempotency-Key',
          postgres: true,
          idempotencyKey: true,
          start: tidingsServe('tidings-serve-postgres-key', [], { cpuProf: true }),
        },
        {
          key: 'postgres-redis',
          label: 'tidings serve --db postgres:// --redis redis://',
          postgres: true,
          start: tidingsServe('tidings-serve-postgres-redis', ['--redis', redisUrl], { cpuProf: true }),
        },
        // BENCH_SEND_READ_OTHER_CLI: the same two without Redis, on another build.
        ...(otherCli
          ? [
              {
                key: 'other-postgres',
                label: 'other build: tidings serve --db postgres://',
                postgres: true,
                start: tidingsServe('other-serve-postgres', [], { bin: otherCli }),
              },
              {
                key: 'other-postgres-key',
                label: 'other build: tidings serve --db postgres://, Idempotency-Key',
                postgres: true,
                idempotencyKey: true,
                start: tidingsServe('other-serve-postgres-key', [], { bin: otherCli }),
              },
            ]
          : []),
      ],
      baselineScript: 'bare-hono.js',
      baselineName: 'bare hono',
      targets: { send: { op: '>=', value: 0.3 }, read: null },
    });
  }
  if (!only || only.includes('express')) {
    const express = (setup) =>
      startServer('tidings-express', join(benchDir, 'servers/tidings-express.js'), [setup.db, setup.config], {
        cpuProf: true,
      });
    await measureAdapter({
      name: 'express',
      variants: [{ key: 'default', label: 'express adapter', start: express }],
      baselineScript: 'bare-express.js',
      baselineName: 'bare express',
      targets: { send: { op: '>=', value: 0.8 }, read: { op: '>=', value: 0.8 } },
    });
  }
} finally {
  await cleanup();
}
