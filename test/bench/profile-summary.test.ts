import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

const frame = (functionName: string, url = '') => ({
  functionName,
  url,
  lineNumber: 0,
  columnNumber: 0,
  scriptId: '0',
});

/**
 * A profile of three seconds: in the first, `send` on 3 samples and idle on 1; in the second,
 * `read` on 2 samples; in the third, idle only.
 */
const PROFILE = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('send', 'file:///app/send.js') },
    { id: 4, callFrame: frame('read', 'file:///app/read.js') },
  ],
  startTime: 0,
  endTime: 3_000_000,
  samples: [3, 3, 2, 3, 4, 4, 2],
  // µs from the sample before: 0.1, 0.2, 0.3, 0.4 s; 1.5, 1.6 s; 2.5 s.
  timeDeltas: [100_000, 100_000, 100_000, 100_000, 1_100_000, 100_000, 900_000],
};

describe('bench/profile-summary.js', () => {
  let dir = '';
  let file = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-profile-'));
    file = join(dir, 'server.cpuprofile');
    writeFileSync(file, JSON.stringify(PROFILE));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const summary = async (...args: string[]) =>
    (await run(process.execPath, [join(repo, 'bench/profile-summary.js'), file, ...args])).stdout;

  it('counts shares of the busy samples, idle ones left out', async () => {
    const out = await summary('5');
    expect(out).toContain('5 busy samples');
    expect(out).toMatch(/60\.0% {2}send \/app\/send\.js:1/);
    expect(out).toMatch(/40\.0% {2}read \/app\/read\.js:1/);
    expect(out).not.toContain('(idle)');
  });

  it('keeps to the seconds between --from and --to', async () => {
    const out = await summary('5', '--from', '1', '--to', '2');
    expect(out).toContain('2 busy samples between 1 s and 2 s');
    expect(out).toMatch(/100\.0% {2}read/);
    expect(out).not.toContain('send /app');
  });

  it('says so when the window holds no busy sample', async () => {
    const out = await summary('5', '--from', '2', '--to', '3');
    expect(out).toContain('0 busy samples between 2 s and 3 s');
    expect(out).toContain('nothing to summarize');
    expect(out).not.toContain('NaN');
  });

  it('prints the busy samples of each second with --timeline', async () => {
    const out = await summary('--timeline');
    expect(out).toMatch(/ {4}0 s {2}3\n {4}1 s {2}2\n?$/);
  });

  it('refuses a window that is not a number', async () => {
    await expect(summary('--from', 'soon')).rejects.toMatchObject({ code: 2 });
  });
});
