import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { until } from '@tidings/core/testing';
import { afterEach, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** A server that flushes a file before answering each POST, as the SQLite store flushes its WAL. */
const SERVER = `
import fs from 'node:fs';
import http from 'node:http';
const fd = fs.openSync(process.argv[2], 'w');
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => fs.fdatasync(fd, () => response.writeHead(201).end('{}')));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

describe('bench/lib/server-trace.cjs and bench/trace-summary.js', () => {
  let dir = '';
  let child: ChildProcess | null = null;
  afterEach(() => {
    child?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('record the POSTs, the flushes and the collections of a server, and summarize them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-trace-'));
    const traces = join(dir, 'traces');
    mkdirSync(traces);
    mkdirSync(join(dir, 'servers'));
    const script = join(dir, 'servers', 'flushing.mjs');
    writeFileSync(script, SERVER);
    const server = spawn(
      process.execPath,
      ['--require', join(repo, 'bench/lib/server-trace.cjs'), script, join(dir, 'file')],
      {
        env: { ...process.env, BENCH_TRACE_DIR: traces },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    child = server;
    const port = await new Promise<string>((ready) =>
      server.stdout?.once('data', (chunk) => ready(String(chunk).trim())),
    );
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' });
      expect(answer.status).toBe(201);
    }
    await fetch(`http://127.0.0.1:${port}/`); // a GET is not recorded
    // The trace is written once a second: summarize it until it holds the five requests.
    const stdout = await until(
      async () => {
        if (readdirSync(traces).length === 0) return '';
        // A file caught while it is being written does not parse yet: try again.
        return run(process.execPath, [join(repo, 'bench/trace-summary.js'), traces, '0']).then(
          (result) => result.stdout,
          () => '',
        );
      },
      {
        accept: (summary) => /requests \(answer written\): n 5,/.test(summary),
        what: 'the five requests in the trace',
        timeoutMs: 15_000,
      },
    );
    expect(readdirSync(traces)).toEqual([`flushing-${server.pid}.json`]);
    expect(stdout).toMatch(/requests \(answer written\): n 5, p50 [\d.]+, p90/);
    expect(stdout).toMatch(/WAL flushes: n 5, p50/);
    // The slowest 3% of five requests is the slowest one, with the flush it waited for.
    expect(stdout).toMatch(/slow request at \+\d+ ms: [\d.]+ ms; flushes [\d.]+;/);
  });

  it('leaves a process alone that is neither `tidings serve` nor a bench server', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-trace-'));
    await run(
      process.execPath,
      ['--require', join(repo, 'bench/lib/server-trace.cjs'), '-e', 'setTimeout(() => {}, 1200)'],
      {
        env: { ...process.env, BENCH_TRACE_DIR: dir },
      },
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});
