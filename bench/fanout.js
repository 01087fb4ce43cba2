// fan-out: BENCH_STREAMS open event streams (recipients × BENCH_BROWSERS_PER_RECIPIENT browsers)
// on one server, held by a separate client process over raw sockets. Sends go to the recipients
// in turn at a steady BENCH_FANOUT_RATE per second for BENCH_FANOUT_SECONDS; the client records
// when each notification event arrives. Prints p50/p99/max from the send's answer to the event
// and from the start of the send to the event, the server's RSS and its RSS per stream.
//
// Servers, each with the same streams, the same sends and the same client, alternating over
// BENCH_FANOUT_ROUNDS rounds in one run (the p99 moves from run to run; the median of the rounds
// counts, every round is printed):
//   - `tidings serve` (the subject);
//   - `tidings serve --sqlite-synchronous normal`: the same without the WAL's flush before a
//     send's events, to show what the disk adds to the subject's latency;
//   - nginx + Nchan, one process (bench/lib/nchan.js): the sender publishes the event's JSON to
//     /pub/<recipient> instead of POST /v1/notifications; skipped when nginx or the module is
//     missing;
//   - bare node:http (bench/servers/bare-node-sse.js): a Map of ServerResponse by recipient;
//   - bare Hono SSE (bench/servers/bare-sse.js), the baseline of the original rows.
//
// BENCH_FANOUT_PEERS (names, comma-separated, e.g. "tidings serve,bare node:http") runs only those;
// the rows that compare with a peer left out are not printed. BENCH_SEMI_SPACE_MB (e.g. "8,4")
// adds a `tidings serve` with that young generation per size (--max-semi-space-size).
//
// Run after `npm run build`: node bench/fanout.js
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchDir,
  cleanup,
  cliBin,
  envNumber,
  formatBytes,
  formatCount,
  formatMs,
  report,
  row,
  settings,
  startServer,
  tempDir,
} from './lib/common.js';
import { eventPayload, measure, median } from './lib/fanout-run.js';
import { nchanAvailable, startNchan } from './lib/nchan.js';
import { prepareDatabase, sendBody } from './lib/setup.js';

const browsersPerRecipient = Math.max(1, Math.floor(settings.browsersPerRecipient));
const recipients = Math.max(1, Math.round(settings.streams / browsersPerRecipient));
const streamCount = recipients * browsersPerRecipient;
const rounds = Math.max(1, Math.round(envNumber('BENCH_FANOUT_ROUNDS', 3)));
const onlyPeers = process.env.BENCH_FANOUT_PEERS?.split(',').map((name) => name.trim());
const semiSpaceName = (mb) => `tidings serve, semi-space ${mb} MB`;
const SYNCHRONOUS_NORMAL = 'tidings serve --sqlite-synchronous normal';

try {
  console.log(
    `fan-out: ${formatCount(streamCount)} streams (${formatCount(recipients)} recipients × ${browsersPerRecipient} browsers), ` +
      `${settings.fanoutRate} sends/s for ${settings.fanoutSeconds} s, ${rounds} rounds`,
  );
  const dir = join(tempDir('fanout'), 'data');
  mkdirSync(dir);
  const setup = await prepareDatabase(dir, { recipients });
  const headers = { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' };
  // Every turn of a Tidings server starts on a fresh copy of the prepared database: the browsers
  // an earlier turn registered would still count as connected, and every send would record
  // attempts for them too.
  let copies = 0;
  const freshDb = () => {
    const copy = join(dir, `tidings-${++copies}.db`);
    for (const suffix of ['', '-wal'])
      if (existsSync(setup.db + suffix)) copyFileSync(setup.db + suffix, copy + suffix);
    return copy;
  };
  const recipientNames = setup.tokens.map((t) => t.recipient);
  const byRecipient = (prefix) =>
    recipientNames.flatMap((name) => Array(browsersPerRecipient).fill(`${prefix}${name}`));
  const sendTo = (server) => (i) => ({
    url: `${server.url}/v1/notifications`,
    headers,
    body: JSON.stringify(sendBody(recipientNames[i % recipientNames.length])),
  });
  let published = 0;
  const publishTo = (server) => (i) => {
    const recipient = recipientNames[i % recipientNames.length];
    const id = `ntf_n${String(++published).padStart(25, '0')}`;
    return {
      url: `${server.url}/pub/${recipient}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(eventPayload(sendBody(recipient), id, published)),
      id,
    };
  };

  const tidingsServe = (name, label, nodeFlags, extraArgs = []) => ({
    name,
    start: () =>
      startServer(label, cliBin, ['serve', '--db', freshDb(), '--port', '0', '--config', setup.config, ...extraArgs], {
        cpuProf: true,
        nodeFlags,
      }),
    paths: setup.tokens.flatMap(({ token }) => Array(browsersPerRecipient).fill(`/v1/connect/${token}`)),
    sendFor: sendTo,
  });
  const youngGenerations = settings.semiSpaceMb.map((mb) => ({
    mb,
    peer: tidingsServe(semiSpaceName(mb), `tidings-serve-fanout-semi-${mb}`, [`--max-semi-space-size=${mb}`]),
  }));

  const peers = [
    tidingsServe('tidings serve', 'tidings-serve-fanout', []),
    // Its events wait for no flush of the WAL: what the disk adds to the default's latency.
    tidingsServe(SYNCHRONOUS_NORMAL, 'tidings-serve-fanout-normal', [], ['--sqlite-synchronous', 'normal']),
    nchanAvailable()
      ? {
          name: 'nginx+nchan',
          start: () => startNchan(),
          paths: byRecipient('/v1/connect/'),
          sendFor: publishTo,
          readyOn: 'head',
        }
      : null,
    {
      name: 'bare node:http',
      start: () => startServer('bare-node-sse', join(benchDir, 'servers/bare-node-sse.js'), []),
      paths: byRecipient('/v1/connect/'),
      sendFor: sendTo,
    },
    {
      name: 'bare hono sse',
      start: () => startServer('bare-sse', join(benchDir, 'servers/bare-sse.js'), []),
      paths: byRecipient('/v1/connect/'),
      sendFor: sendTo,
    },
    {
      name: 'express adapter',
      start: () =>
        startServer('tidings-express-fanout', join(benchDir, 'servers/tidings-express.js'), [freshDb(), setup.config]),
      paths: setup.tokens.flatMap(({ token }) => Array(browsersPerRecipient).fill(`/v1/connect/${token}`)),
      sendFor: sendTo,
    },
    {
      name: 'bare express',
      start: () => startServer('bare-express-sse', join(benchDir, 'servers/bare-express-sse.js'), []),
      paths: byRecipient('/v1/connect/'),
      sendFor: sendTo,
    },
  ]
    .filter(Boolean)
    .filter((peer) => !onlyPeers || onlyPeers.includes(peer.name));
  // Asked for by BENCH_SEMI_SPACE_MB, so never left out by BENCH_FANOUT_PEERS.
  peers.splice(1, 0, ...youngGenerations.map(({ peer }) => peer));
  if (!nchanAvailable()) console.warn('nginx with the Nchan module not found: the Nchan peer is skipped');

  const results = new Map(peers.map((peer) => [peer.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const peer of peers) {
      const server = await peer.start();
      const label = `${peer.name} (round ${round}/${rounds})`;
      try {
        results.get(peer.name).push(
          await measure({
            label,
            server,
            paths: peer.paths,
            readyOn: peer.readyOn,
            sendFor: peer.sendFor(server),
            rate: settings.fanoutRate,
            seconds: settings.fanoutSeconds,
            browsersPerRecipient,
          }),
        );
      } finally {
        await server.stop();
      }
    }
  }

  /** The median of the rounds of every figure a row uses, and the rounds themselves for notes. */
  const summary = (name) => {
    const runs = results.get(name);
    if (!runs || runs.length === 0) return null;
    const m = (pick) => median(runs.map(pick));
    return {
      runs,
      opened: m((r) => r.opened),
      answerP50: m((r) => r.fromAnswer.p50),
      answerP99: m((r) => r.fromAnswer.p99),
      answerMax: m((r) => r.fromAnswer.max),
      startP50: m((r) => r.fromStart.p50),
      startP99: m((r) => r.fromStart.p99),
      startMax: m((r) => r.fromStart.max),
      perStream: m((r) => r.perStream),
      rssBefore: m((r) => r.rssBefore),
      rssAfter: m((r) => r.rssAfter),
      rssEnd: m((r) => r.rssEnd),
    };
  };
  const completeness = (m) =>
    `${formatCount(m.received)}/${formatCount(m.expected)} events` +
    (m.failedSends ? `, ${m.failedSends} sends failed` : '') +
    (m.failedStreams ? `, ${m.failedStreams} streams failed` : '') +
    (m.ended ? `, ${m.ended} streams ended early` : '');
  const roundsText = (s, pick) => s.runs.map((r) => pick(r)).join(', ');
  const startRounds = (s) => roundsText(s, (r) => `${formatMs(r.fromStart.p99)} [${completeness(r)}]`);
  const rssRounds = (s) => roundsText(s, (r) => formatBytes(r.perStream));

  const subject = summary('tidings serve');
  const hono = summary('bare hono sse');
  const node = summary('bare node:http');
  const nchan = summary('nginx+nchan');
  if (!subject) throw new Error('the fan-out run needs the tidings serve peer');
  const streamsText = `${formatCount(subject.opened)} streams`;
  const roundsNote = `median of ${rounds} alternating rounds`;

  if (hono) {
    report(
      row({
        benchmark: `fan-out 201→event p99 (${streamsText})`,
        figure: subject.answerP99,
        figureText: formatMs(subject.answerP99),
        baseline: hono.answerP99,
        baselineText: formatMs(hono.answerP99),
        baselineName: 'bare hono sse',
        unit: 'ms',
        target: { on: 'figure', op: '<', value: 50, text: '50 ms' },
        note:
          `${roundsNote}; p50/p99/max ${formatMs(subject.answerP50)}/${formatMs(subject.answerP99)}/${formatMs(subject.answerMax)}` +
          ` (bare ${formatMs(hono.answerP50)}/${formatMs(hono.answerP99)}/${formatMs(hono.answerMax)});` +
          ` start→event p50/p99/max ${formatMs(subject.startP50)}/${formatMs(subject.startP99)}/${formatMs(subject.startMax)}` +
          ` (bare ${formatMs(hono.startP50)}/${formatMs(hono.startP99)}/${formatMs(hono.startMax)});` +
          ` rounds start→event p99: tidings ${startRounds(subject)}; bare hono ${startRounds(hono)}`,
      }),
    );
    report(
      row({
        benchmark: `fan-out RSS per stream (${streamsText})`,
        figure: subject.perStream,
        figureText: formatBytes(subject.perStream),
        baseline: hono.perStream,
        baselineText: formatBytes(hono.perStream),
        baselineName: 'bare hono sse',
        unit: 'bytes',
        target: { on: 'figure', op: '<', value: 50 * 1024, text: '50 KB' },
        note:
          `${roundsNote}; server RSS ${formatBytes(subject.rssBefore)} → ${formatBytes(subject.rssAfter)} with streams open, ${formatBytes(subject.rssEnd)} after the sends` +
          ` (bare ${formatBytes(hono.rssBefore)} → ${formatBytes(hono.rssAfter)}, ${formatBytes(hono.rssEnd)});` +
          ` rounds: tidings ${rssRounds(subject)}; bare hono ${rssRounds(hono)}`,
      }),
    );
  }
  const rssTarget = { on: 'figure', op: '<=', value: 12 * 1024, text: '12 KB' };
  for (const [peer, name] of [
    [node, 'bare node:http'],
    [nchan, 'nginx+nchan'],
  ]) {
    if (!peer) continue;
    report(
      row({
        benchmark: `fan-out RSS per stream vs ${name} (${streamsText})`,
        figure: subject.perStream,
        figureText: formatBytes(subject.perStream),
        baseline: peer.perStream,
        baselineText: formatBytes(peer.perStream),
        baselineName: name,
        unit: 'bytes',
        target: rssTarget,
        note:
          `${roundsNote}; ${name} RSS ${formatBytes(peer.rssBefore)} → ${formatBytes(peer.rssAfter)}, ${formatBytes(peer.rssEnd)} after the sends;` +
          ` rounds: tidings ${rssRounds(subject)}; ${name} ${rssRounds(peer)}`,
      }),
    );
    report(
      row({
        benchmark: `fan-out start→event p99 vs ${name} (${streamsText})`,
        figure: subject.startP99,
        figureText: formatMs(subject.startP99),
        baseline: peer.startP99,
        baselineText: formatMs(peer.startP99),
        baselineName: name,
        unit: 'ms',
        target: name === 'bare node:http' ? { on: 'ratio', op: '<=', value: 2 } : null,
        note:
          `${roundsNote}; start→event p50/p99/max tidings ${formatMs(subject.startP50)}/${formatMs(subject.startP99)}/${formatMs(subject.startMax)},` +
          ` ${name} ${formatMs(peer.startP50)}/${formatMs(peer.startP99)}/${formatMs(peer.startMax)};` +
          ` rounds: ${name} ${startRounds(peer)}`,
      }),
    );
  }
  // `tidings serve` with a smaller young generation against Node's default, in the same rounds.
  for (const { mb } of youngGenerations) {
    const variant = summary(semiSpaceName(mb));
    report(
      row({
        benchmark: `fan-out RSS per stream, semi-space ${mb} MB vs Node's default (${streamsText})`,
        figure: variant.perStream,
        figureText: formatBytes(variant.perStream),
        baseline: subject.perStream,
        baselineText: formatBytes(subject.perStream),
        baselineName: 'tidings serve',
        unit: 'bytes',
        target: rssTarget,
        note: `${roundsNote}; rounds: semi-space ${mb} MB ${rssRounds(variant)}; default ${rssRounds(subject)}`,
      }),
    );
    report(
      row({
        benchmark: `fan-out start→event p99, semi-space ${mb} MB vs Node's default (${streamsText})`,
        figure: variant.startP99,
        figureText: formatMs(variant.startP99),
        baseline: subject.startP99,
        baselineText: formatMs(subject.startP99),
        baselineName: 'tidings serve',
        unit: 'ms',
        target: null,
        note: `${roundsNote}; rounds: semi-space ${mb} MB ${startRounds(variant)}; default ${startRounds(subject)}`,
      }),
    );
  }
  // Without the flush of the WAL before a send's events (and its 201): the disk's share of the
  // default's latency, against the default and against bare node:http, in the same rounds.
  const normal = summary(SYNCHRONOUS_NORMAL);
  if (normal) {
    for (const [peer, name] of [
      [subject, 'tidings serve'],
      [node, 'bare node:http'],
    ]) {
      if (!peer) continue;
      report(
        row({
          benchmark: `fan-out start→event p99, --sqlite-synchronous normal vs ${name} (${streamsText})`,
          figure: normal.startP99,
          figureText: formatMs(normal.startP99),
          baseline: peer.startP99,
          baselineText: formatMs(peer.startP99),
          baselineName: name,
          unit: 'ms',
          target: null,
          note:
            `${roundsNote}; start→event p50/p99/max normal ${formatMs(normal.startP50)}/${formatMs(normal.startP99)}/${formatMs(normal.startMax)},` +
            ` ${name} ${formatMs(peer.startP50)}/${formatMs(peer.startP99)}/${formatMs(peer.startMax)};` +
            ` RSS per stream normal ${formatBytes(normal.perStream)}; rounds: normal ${startRounds(normal)}; ${name} ${startRounds(peer)}`,
        }),
      );
    }
  }
  // The Express adapter against Express itself: what the adapter holds per stream on top.
  const express = summary('express adapter');
  const bareExpress = summary('bare express');
  if (express && bareExpress) {
    report(
      row({
        benchmark: `fan-out RSS per stream, Express adapter vs bare Express (${streamsText})`,
        figure: express.perStream,
        figureText: formatBytes(express.perStream),
        baseline: bareExpress.perStream,
        baselineText: formatBytes(bareExpress.perStream),
        baselineName: 'bare express',
        unit: 'bytes',
        target: { on: 'ratio', op: '<=', value: 1.1 },
        note:
          `${roundsNote}; rounds: adapter ${rssRounds(express)}; bare express ${rssRounds(bareExpress)};` +
          ` start→event p50/p99 adapter ${formatMs(express.startP50)}/${formatMs(express.startP99)},` +
          ` bare express ${formatMs(bareExpress.startP50)}/${formatMs(bareExpress.startP99)}`,
      }),
    );
  }
} finally {
  await cleanup();
}
