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

  /** How each compared figure is shown, by its key in a summary. */
  const FIGURES = {
    answerP99: { unit: 'ms', format: formatMs },
    startP99: { unit: 'ms', format: formatMs },
    perStream: { unit: 'bytes', format: formatBytes },
  };
  /** Reports one server's median `figure` against another's, both measured in the same rounds. */
  const compare = ({ benchmark, figure, of, against, againstName, target = null, note }) => {
    const { unit, format } = FIGURES[figure];
    report(
      row({
        benchmark: `${benchmark} (${streamsText})`,
        figure: of[figure],
        figureText: format(of[figure]),
        baseline: against[figure],
        baselineText: format(against[figure]),
        baselineName: againstName,
        unit,
        target,
        note: `${roundsNote}; ${note}`,
      }),
    );
  };
  /** p50/p99/max of the 201→event (`answer`) or start→event (`start`) times of a summary. */
  const spread = (s, from) => `${formatMs(s[`${from}P50`])}/${formatMs(s[`${from}P99`])}/${formatMs(s[`${from}Max`])}`;
  const rssChange = (s) => `${formatBytes(s.rssBefore)} → ${formatBytes(s.rssAfter)}`;

  if (hono) {
    const versusHono = { of: subject, against: hono, againstName: 'bare hono sse' };
    compare({
      ...versusHono,
      benchmark: 'fan-out 201→event p99',
      figure: 'answerP99',
      target: { on: 'figure', op: '<', value: 50, text: '50 ms' },
      note:
        `p50/p99/max ${spread(subject, 'answer')} (bare ${spread(hono, 'answer')});` +
        ` start→event p50/p99/max ${spread(subject, 'start')} (bare ${spread(hono, 'start')});` +
        ` rounds start→event p99: tidings ${startRounds(subject)}; bare hono ${startRounds(hono)}`,
    });
    compare({
      ...versusHono,
      benchmark: 'fan-out RSS per stream',
      figure: 'perStream',
      target: { on: 'figure', op: '<', value: 50 * 1024, text: '50 KB' },
      note:
        `server RSS ${rssChange(subject)} with streams open, ${formatBytes(subject.rssEnd)} after the sends` +
        ` (bare ${rssChange(hono)}, ${formatBytes(hono.rssEnd)});` +
        ` rounds: tidings ${rssRounds(subject)}; bare hono ${rssRounds(hono)}`,
    });
  }
  const rssTarget = { on: 'figure', op: '<=', value: 12 * 1024, text: '12 KB' };
  for (const [peer, name] of [
    [node, 'bare node:http'],
    [nchan, 'nginx+nchan'],
  ]) {
    if (!peer) continue;
    compare({
      benchmark: `fan-out RSS per stream vs ${name}`,
      figure: 'perStream',
      of: subject,
      against: peer,
      againstName: name,
      target: rssTarget,
      note:
        `${name} RSS ${rssChange(peer)}, ${formatBytes(peer.rssEnd)} after the sends;` +
        ` rounds: tidings ${rssRounds(subject)}; ${name} ${rssRounds(peer)}`,
    });
    compare({
      benchmark: `fan-out start→event p99 vs ${name}`,
      figure: 'startP99',
      of: subject,
      against: peer,
      againstName: name,
      target: name === 'bare node:http' ? { on: 'ratio', op: '<=', value: 2 } : null,
      note:
        `start→event p50/p99/max tidings ${spread(subject, 'start')}, ${name} ${spread(peer, 'start')};` +
        ` rounds: ${name} ${startRounds(peer)}`,
    });
  }
  // `tidings serve` with a smaller young generation against Node's default, in the same rounds.
  for (const { mb } of youngGenerations) {
    const variant = summary(semiSpaceName(mb));
    const versusDefault = { of: variant, against: subject, againstName: 'tidings serve' };
    compare({
      ...versusDefault,
      benchmark: `fan-out RSS per stream, semi-space ${mb} MB vs Node's default`,
      figure: 'perStream',
      target: rssTarget,
      note: `rounds: semi-space ${mb} MB ${rssRounds(variant)}; default ${rssRounds(subject)}`,
    });
    compare({
      ...versusDefault,
      benchmark: `fan-out start→event p99, semi-space ${mb} MB vs Node's default`,
      figure: 'startP99',
      note: `rounds: semi-space ${mb} MB ${startRounds(variant)}; default ${startRounds(subject)}`,
    });
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
      compare({
        benchmark: `fan-out start→event p99, --sqlite-synchronous normal vs ${name}`,
        figure: 'startP99',
        of: normal,
        against: peer,
        againstName: name,
        note:
          `start→event p50/p99/max normal ${spread(normal, 'start')}, ${name} ${spread(peer, 'start')};` +
          ` RSS per stream normal ${formatBytes(normal.perStream)}; rounds: normal ${startRounds(normal)}; ${name} ${startRounds(peer)}`,
      });
    }
  }
  // The Express adapter against Express itself: what the adapter holds per stream on top.
  const express = summary('express adapter');
  const bareExpress = summary('bare express');
  if (express && bareExpress) {
    compare({
      benchmark: 'fan-out RSS per stream, Express adapter vs bare Express',
      figure: 'perStream',
      of: express,
      against: bareExpress,
      againstName: 'bare express',
      target: { on: 'ratio', op: '<=', value: 1.1 },
      note:
        `rounds: adapter ${rssRounds(express)}; bare express ${rssRounds(bareExpress)};` +
        ` start→event p50/p99 adapter ${formatMs(express.startP50)}/${formatMs(express.startP99)},` +
        ` bare express ${formatMs(bareExpress.startP50)}/${formatMs(bareExpress.startP99)}`,
    });
  }
} finally {
  await cleanup();
}
