import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/**
 * A server that keeps about 32 MB of small objects alive when asked, collected at once so that
 * they are in V8's old generation, whatever the young generation's size.
 */
const SERVER = `
import http from 'node:http';
const kept = [];
const server = http.createServer((request, response) => {
  for (let i = 0; i < 400_000; i++) kept.push({ i, text: 'x'.repeat(8) + i });
  globalThis.gc();
  globalThis.gc();
  response.end(String(kept.length));
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

/** Starts the server as the benches do, and reads its memory before and after it grows. */
const DRIVER = `
import { cleanup, memoryUsage, startServer } from ${JSON.stringify(join(repo, 'bench/lib/common.js'))};
const server = await startServer('memory', process.argv[2], [], { memoryReport: true, nodeFlags: ['--expose-gc'] });
const before = await memoryUsage(server.pid);
await (await fetch(server.url)).text();
const after = await memoryUsage(server.pid);
await cleanup();
console.log(JSON.stringify({ before, after }));
`;

describe('bench/lib/memory-report.cjs', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-memory-report-'));
    writeFileSync(join(dir, 'server.mjs'), SERVER);
    writeFileSync(join(dir, 'driver.mjs'), DRIVER);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("tells a bench what a server's memory is made of, read again after it grew", async () => {
    const { stdout } = await run(process.execPath, [join(dir, 'driver.mjs'), join(dir, 'server.mjs')], {
      timeout: 15_000,
    });
    const { before, after } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    for (const usage of [before, after]) {
      expect(usage.rss).toBeGreaterThan(0);
      expect(usage.heapTotal).toBeGreaterThan(0);
      expect(usage.youngGeneration).toBeGreaterThan(0);
      expect(usage.youngGeneration).toBeLessThan(usage.heapTotal);
    }
    // The objects kept went to V8's heap beside its young generation, and the RSS grew with it.
    const oldHeap = (usage: { heapTotal: number; youngGeneration: number }) => usage.heapTotal - usage.youngGeneration;
    expect(oldHeap(after) - oldHeap(before)).toBeGreaterThan(16 * 1024 * 1024);
    expect(after.rss - before.rss).toBeGreaterThan(16 * 1024 * 1024);
  });
});
