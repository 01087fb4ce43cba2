// What metrics cost: send and read through `tidings serve` with `--metrics` (prom-client
// counting every request, send, attempt and store operation) against the same server without
// it, measured alternately in one run. Each server has its own database and its own browser
// whose event stream is held open by a separate client process, as in send-read.js.
//
// Run after `npm run build`: node bench/metrics-cost.js (or `node bench/run.js metrics`).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, cleanup, cliBin, forkHelper, report, row, settings, startServer, tempDir } from './lib/common.js';
import { compare, describe, note } from './lib/http-compare.js';
import { prepareDatabase, sendBody } from './lib/setup.js';

const streamClient = join(benchDir, 'lib/stream-client.js');

/** A `tidings serve` on a fresh database, with its browser's stream open. */
async function startTidings(name, extraArgs) {
  const dir = join(tempDir(name), 'data');
  mkdirSync(dir);
  const setup = await prepareDatabase(dir, { recipients: 1 });
  const args = ['serve', '--db', setup.db, '--port', '0', '--config', setup.config, ...extraArgs];
  const server = await startServer(name, cliBin, args);
  const { hostname, port } = new URL(server.url);
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
  const sendRequest = {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(sendBody(setup.tokens[0].recipient)),
    expect: 201,
  };
  const readRequest = { method: 'GET', headers: { authorization: `Bearer ${setup.apiKey}` }, expect: 200 };
  return { server, client, setup, sendRequest, readRequest };
}

/** A path that reads one notification of the server's project; the same path works on both servers. */
async function readable(side) {
  const created = await fetch(`${side.server.url}/v1/notifications`, side.sendRequest);
  if (created.status !== 201) throw new Error(`send for the read run answered ${created.status}`);
  return (await created.json()).id;
}

try {
  console.log(
    `metrics cost: tidings serve --metrics vs without; autocannon, ${settings.connections} connections; ${settings.warmup} s warm-up, then ${settings.rounds} × ${settings.duration} s runs, alternating`,
  );
  const off = await startTidings('metrics-off', []);
  const on = await startTidings('metrics-on', ['--metrics', '127.0.0.1:0']);

  const measurements = [
    ['send', '/v1/notifications', '/v1/notifications', 'sendRequest'],
    ['read', `/v1/notifications/${await readable(off)}`, `/v1/notifications/${await readable(on)}`, 'readRequest'],
  ];
  for (const [what, offPath, onPath, request] of measurements) {
    const {
      baseline,
      subjects: [subject],
    } = await compare({ url: off.server.url, pid: off.server.pid, path: offPath, request: off[request] }, [
      { url: on.server.url, pid: on.server.pid, path: onPath, request: on[request] },
    ]);
    report(
      row({
        benchmark: `${what}, tidings serve --metrics`,
        figure: subject.rps,
        figureText: describe(subject),
        baseline: baseline.rps,
        baselineText: describe(baseline),
        baselineName: 'tidings serve without --metrics',
        unit: 'req/s',
        target: null,
        note: note(subject, baseline),
      }),
    );
  }
  for (const side of [off, on]) {
    await side.client.close();
    await side.server.stop();
  }
} finally {
  await cleanup();
}
