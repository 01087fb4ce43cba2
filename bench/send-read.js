// send and read over HTTP: POST /v1/notifications and GET /v1/notifications/{id} with a live key,
// through `tidings serve` (Hono adapter, SQLite file store in WAL mode) and through the Express
// adapter, each against a bare app of the same framework measured in the same run.
//
// The recipient has one connected browser whose event stream is held open and read by a
// separate client process, so that every send records an attempt and writes it to a stream.
// Limits are configured high, but the limiter still decides every request.
//
// Run after `npm run build`: node bench/send-read.js (or `npm run bench` for everything).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, cleanup, cliBin, forkHelper, report, row, settings, startServer, tempDir } from './lib/common.js';
import { compare, describe, note } from './lib/http-compare.js';
import { prepareDatabase, sendBody } from './lib/setup.js';

const streamClient = join(benchDir, 'lib/stream-client.js');

/** Starts a Tidings server, opens the browser's stream, and measures send and read against a baseline. */
async function measureAdapter({ name, adapterLabel, startTidings, baselineScript, baselineName, targets }) {
  const dir = join(tempDir(name), 'data');
  mkdirSync(dir);
  const setup = await prepareDatabase(dir, { recipients: 1 });
  const tidings = await startTidings(setup);
  const { hostname, port } = new URL(tidings.url);
  const client = forkHelper(streamClient);
  const opened = await client.request(
    {
      type: 'open',
      host: hostname,
      port: Number(port),
      paths: [`/v1/connect/${setup.tokens[0].token}`],
      concurrency: 1,
      record: false,
    },
    'opened',
  );
  if (opened.ok !== 1) throw new Error(`${name}: the browser's stream did not open: ${opened.errors.join(', ')}`);
  const baseline = await startServer(baselineName, join(benchDir, 'servers', baselineScript), []);

  const body = JSON.stringify(sendBody(setup.tokens[0].recipient));
  const sendRequest = {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
    body,
    expect: 201,
  };

  // send
  const before = (await client.request({ type: 'collect' }, 'collected')).events;
  const { baseline: baseSend, subject: send } = await compare(baseline, tidings, '/v1/notifications', sendRequest);
  const after = await client.request({ type: 'collect' }, 'collected');
  const sent = send.all.reduce((sum, rps) => sum + rps, 0) * settings.duration;
  report(
    row({
      benchmark: `send (${adapterLabel})`,
      figure: send.rps,
      figureText: describe(send),
      baseline: baseSend.rps,
      baselineText: describe(baseSend),
      baselineName,
      unit: 'req/s',
      target: targets.send,
      note: note(send, baseSend, [
        `${formatCount(after.events - before)} events read by the stream client for ~${formatCount(sent)} measured sends and the warm-up`,
      ]),
    }),
  );
  if (after.ended > 0) console.warn(`${name}: the browser's stream ended during the send run`);

  // read: one notification of this project, read again and again
  const created = await fetch(`${tidings.url}/v1/notifications`, sendRequest);
  if (created.status !== 201) throw new Error(`${name}: send for the read run answered ${created.status}`);
  const { id } = await created.json();
  const readRequest = { method: 'GET', headers: { authorization: `Bearer ${setup.apiKey}` }, expect: 200 };
  const { baseline: baseRead, subject: read } = await compare(
    baseline,
    tidings,
    `/v1/notifications/${id}`,
    readRequest,
  );
  report(
    row({
      benchmark: `read (${adapterLabel})`,
      figure: read.rps,
      figureText: describe(read),
      baseline: baseRead.rps,
      baselineText: describe(baseRead),
      baselineName,
      unit: 'req/s',
      target: targets.read,
      note: note(read, baseRead),
    }),
  );

  await client.close();
  await baseline.stop();
  await tidings.stop();
}

try {
  console.log(
    `send/read: autocannon, ${settings.connections} connections; ${settings.warmup} s warm-up, then ${settings.rounds} × ${settings.duration} s runs alternating with the baseline`,
  );
  await measureAdapter({
    name: 'hono',
    adapterLabel: 'hono adapter, tidings serve',
    startTidings: (setup) =>
      startServer('tidings-serve', cliBin, ['serve', '--db', setup.db, '--port', '0', '--config', setup.config], {
        cpuProf: true,
      }),
    baselineScript: 'bare-hono.js',
    baselineName: 'bare hono',
    targets: { send: { op: '>=', value: 0.5 }, read: { op: '>=', value: 0.6 } },
  });
  // The same server with the faster, power-loss-unsafe commit mode, for the figure it would give.
  await measureAdapter({
    name: 'hono-normal',
    adapterLabel: 'tidings serve --sqlite-synchronous normal',
    startTidings: (setup) =>
      startServer(
        'tidings-serve-normal',
        cliBin,
        ['serve', '--db', setup.db, '--port', '0', '--config', setup.config, '--sqlite-synchronous', 'normal'],
        {},
      ),
    baselineScript: 'bare-hono.js',
    baselineName: 'bare hono',
    targets: { send: null, read: null },
  });
  await measureAdapter({
    name: 'express',
    adapterLabel: 'express adapter',
    startTidings: (setup) =>
      startServer('tidings-express', join(benchDir, 'servers/tidings-express.js'), [setup.db, setup.config], {
        cpuProf: true,
      }),
    baselineScript: 'bare-express.js',
    baselineName: 'bare express',
    targets: { send: { op: '>=', value: 0.8 }, read: { op: '>=', value: 0.8 } },
  });
} finally {
  await cleanup();
}
