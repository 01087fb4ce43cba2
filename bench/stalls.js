// stalls: the longest the event loop is held while BENCH_STREAMS (10 000) open streams end at
// once, on a `tidings serve` server run in this process (so that its loop can be watched): when
// their project is suspended, when every client goes away at once (the process holding the
// sockets is killed), and when the server shuts down. A 1 ms timer notes the longest gap
// between two of its ticks during each scenario (what every other request waited at most).
//
// Baseline: a bare node:http server holding the same streams as ServerResponse objects, in the
// same process, in the same run: ending every response in one loop, the clients going away,
// and closing the server.
//
// Run after `npm run build`: node bench/stalls.js
import http from 'node:http';
import { join } from 'node:path';
import { startServer as startTidings } from 'tidings';
import {
  benchDir,
  cleanup,
  forkHelper,
  formatCount,
  formatMs,
  report,
  row,
  settings,
  sleep,
  tempDir,
} from './lib/common.js';
import { prepareDatabase } from './lib/setup.js';

const streamClient = join(benchDir, 'lib/stream-client.js');
const perRecipient = Math.max(1, Math.floor(settings.browsersPerRecipient));
const recipients = Math.max(1, Math.round(settings.streams / perRecipient));

/** Watches the event loop: `longest()` is the longest gap between two ticks of a 1 ms timer since `start()`. */
function loopWatch() {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    start() {
      last = performance.now();
      longest = 0;
    },
    longest: () => Math.max(longest, performance.now() - last),
    stop: () => clearInterval(timer),
  };
}

async function until(condition, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Opens the streams from a fresh client process; returns it. */
async function openStreams(port, paths) {
  const client = forkHelper(streamClient);
  const opened = await client.request(
    { type: 'open', host: '127.0.0.1', port, paths, concurrency: 64, record: false },
    'opened',
  );
  if (opened.failed > 0) throw new Error(`${opened.failed} streams failed to open: ${opened.errors.join(', ')}`);
  return client;
}

/** Kills the client process: the kernel closes its sockets at once. */
async function killClient(client) {
  const exited = new Promise((resolve) => client.child.once('exit', resolve));
  client.child.kill('SIGKILL');
  await exited;
}

/** Runs one scenario: `act` starts it, `done` says when it is over; returns the longest block. */
async function scenario(watch, act, done) {
  await sleep(300);
  watch.start();
  const started = performance.now();
  const acting = act();
  await until(done, 'the streams to end');
  await acting;
  const took = performance.now() - started;
  await sleep(200);
  return { longest: watch.longest(), took };
}

async function measureTidings(watch) {
  const setup = await prepareDatabase(tempDir('stalls'), { recipients });
  const config = JSON.parse((await import('node:fs')).readFileSync(setup.config, 'utf8'));
  const paths = setup.tokens.flatMap(({ token }) => Array(perRecipient).fill(`/v1/connect/${token}`));
  let server = await startTidings({ db: setup.db, port: 0, tidings: config, dashboard: { enabled: false } });
  const open = () => server.tidings.openStreams();
  const result = {};

  let client = await openStreams(server.port, paths);
  result.suspend = await scenario(
    watch,
    () => server.tidings.admin.suspendProject(setup.projectId),
    () => open() === 0,
  );
  await server.tidings.admin.resumeProject(setup.projectId);
  await killClient(client);

  client = await openStreams(server.port, paths);
  result.disconnect = await scenario(
    watch,
    () => killClient(client),
    () => open() === 0,
  );

  client = await openStreams(server.port, paths);
  let closed = false;
  result.shutdown = await scenario(
    watch,
    () => server.close().then(() => (closed = true)),
    () => closed,
  );
  await killClient(client);
  server = null;
  return result;
}

async function measureBare(watch) {
  const held = new Set();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.write('retry: 2000\n\nid: b.0\nevent: ready\ndata: {}\n\n');
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const paths = Array.from({ length: recipients * perRecipient }, (_, i) => `/v1/connect/r${i}`);
  const result = {};

  let client = await openStreams(port, paths);
  result.suspend = await scenario(
    watch,
    async () => {
      for (const res of [...held]) res.end();
    },
    () => held.size === 0,
  );
  await killClient(client);

  client = await openStreams(port, paths);
  result.disconnect = await scenario(
    watch,
    () => killClient(client),
    () => held.size === 0,
  );

  client = await openStreams(port, paths);
  let closed = false;
  result.shutdown = await scenario(
    watch,
    async () => {
      server.close(() => (closed = true));
      server.closeAllConnections();
    },
    () => closed,
  );
  await killClient(client);
  return result;
}

try {
  const streams = recipients * perRecipient;
  console.log(`stalls: ${formatCount(streams)} streams ending at once; longest block of the event loop`);
  const watch = loopWatch();
  const tidings = await measureTidings(watch);
  const bare = await measureBare(watch);
  watch.stop();
  const names = {
    suspend: 'project suspended (bare: every response ended in one loop)',
    disconnect: 'every client gone at once',
    shutdown: 'server shut down',
  };
  for (const [key, name] of Object.entries(names)) {
    console.log(
      `${name}: tidings ${formatMs(tidings[key].longest)} (all ended in ${formatMs(tidings[key].took)}),` +
        ` bare node:http ${formatMs(bare[key].longest)} (${formatMs(bare[key].took)})`,
    );
    report(
      row({
        benchmark: `longest loop block, ${formatCount(streams)} streams: ${name}`,
        figure: tidings[key].longest,
        figureText: formatMs(tidings[key].longest),
        baseline: bare[key].longest,
        baselineText: formatMs(bare[key].longest),
        baselineName: 'bare node:http',
        unit: 'ms',
        target: { on: 'figure', op: '<=', value: 20, text: '20 ms' },
        note: `all ${formatCount(streams)} ended in ${formatMs(tidings[key].took)} (bare ${formatMs(bare[key].took)})`,
      }),
    );
  }
} finally {
  await cleanup();
}
