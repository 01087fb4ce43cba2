import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasProgram, planSuites, probeTcp, REQUIRE_SERVICES_VARIABLE, type ServiceNeed } from './services.js';

const need = (name: string, suites: string[]): ServiceNeed => ({
  name,
  howToEnable: `install ${name}`,
  suites,
  probe: async () => true,
});

describe('planSuites', () => {
  const needs = [
    need('Alpha', ['a/**/*.test.ts', 'shared.test.ts']),
    need('Beta', ['b/**/*.test.ts', 'shared.test.ts']),
  ];

  it('leaves nothing out and says nothing when every service is there', () => {
    expect(planSuites(needs, [true, true], false)).toEqual({ exclude: [], summary: null });
    expect(planSuites(needs, [true, true], true)).toEqual({ exclude: [], summary: null });
  });

  it("leaves out a missing service's suites and names it, how to enable it, and the variable", () => {
    const plan = planSuites(needs, [true, false], false);
    expect(plan.exclude).toEqual(['b/**/*.test.ts', 'shared.test.ts']);
    expect(plan.summary).toContain('Beta not available');
    expect(plan.summary).toContain('install Beta');
    expect(plan.summary).toContain(`${REQUIRE_SERVICES_VARIABLE}=1`);
    expect(plan.summary).not.toContain('Alpha');
  });

  it('lists a suite two missing services share once', () => {
    expect(planSuites(needs, [false, false], false).exclude).toEqual([
      'a/**/*.test.ts',
      'shared.test.ts',
      'b/**/*.test.ts',
    ]);
  });

  it('fails the run instead when every service is required', () => {
    expect(() => planSuites(needs, [false, true], true)).toThrow(/missing: Alpha\. Alpha: install Alpha/);
  });
});

describe('probes', () => {
  let silent: Server;
  let silentPort = 0;
  beforeAll(async () => {
    // Accepts connections and answers with the wrong bytes.
    silent = createServer((socket) => {
      socket.on('error', () => {});
      socket.end('-ERR no\r\n');
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(() => {
    silent.close();
  });

  it('a closed port is not a service', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await probeTcp(`redis://127.0.0.1:${port}`, 6379)).toBe(false);
  });

  it('a server that answers the greeting wrongly is not the service', async () => {
    const url = `redis://127.0.0.1:${silentPort}`;
    expect(await probeTcp(url, 6379, Buffer.from('PING\r\n'), (a) => a.toString().startsWith('+PONG'))).toBe(false);
    expect(await probeTcp(url, 6379, Buffer.from('PING\r\n'), (a) => a.toString().startsWith('-ERR'))).toBe(true);
  });

  it('finds programs on PATH and by path', () => {
    expect(hasProgram('node')).toBe(true);
    expect(hasProgram(process.execPath)).toBe(true);
    expect(hasProgram('no-such-program-tidings')).toBe(false);
    expect(hasProgram('/nonexistent/chromium')).toBe(false);
  });
});

describe('a run without PostgreSQL', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
  const run = (extra: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [vitest, 'run', 'packages/cli/test/store-choice.test.ts', '--passWithNoTests'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, TIDINGS_TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test', ...extra },
      timeout: 60_000,
    });

  it('skips the PostgreSQL suites and says so at the end', () => {
    const result = run({ [REQUIRE_SERVICES_VARIABLE]: '' });
    const output = result.stdout + result.stderr;
    // Other services may be missing too where this runs: PostgreSQL is named among them.
    expect(output).toMatch(/SKIPPED SUITES: (?:[\w-]+, )*PostgreSQL(?:, [\w-]+)* not available/);
    expect(output).toContain('packages/cli/test/store-choice.test.ts');
    expect(result.status).toBe(0);
  });

  it(`fails under ${REQUIRE_SERVICES_VARIABLE}=1`, () => {
    const result = run({ [REQUIRE_SERVICES_VARIABLE]: '1' });
    expect(result.stdout + result.stderr).toMatch(/test services are missing: PostgreSQL/);
    expect(result.status).not.toBe(0);
  });
});
