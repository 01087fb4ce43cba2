import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';

/**
 * The outside services some suites need, how the test run finds each, and which suites need it.
 * The test configs probe them once: a suite whose service is missing is left out of the run and
 * named in one summary line at the end, unless `TIDINGS_TEST_REQUIRE_SERVICES=1` (CI) makes a
 * missing service fail the run before any test starts.
 */
export interface ServiceNeed {
  /** What the summary calls it. */
  name: string;
  /** How a reader makes it available. */
  howToEnable: string;
  /** Test file globs, relative to the repository, that cannot run without it. */
  suites: string[];
  /** True when the service answers (a server) or is installed (a program). */
  probe(): Promise<boolean>;
}

/** The PostgreSQL the tests use, as `packages/store-postgres/src/test-support/test-database.ts` reads it. */
export const testDatabaseUrl = process.env.TIDINGS_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
/** The shared Redis the tests use (never flushed: each run has a key prefix of its own). */
export const testRedisUrl = process.env.TIDINGS_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
/** Debian's Chromium, or the one `CHROMIUM_PATH` names. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const PROBE_TIMEOUT_MS = 2_000;

/**
 * Opens a TCP connection to the URL's host and port, writes `greeting`, and resolves true when
 * the first bytes of the answer satisfy `accept` (any answer at all when no greeting is given).
 */
export function probeTcp(
  url: string,
  defaultPort: number,
  greeting?: Buffer,
  accept: (answer: Buffer) => boolean = () => true,
): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
      port: Number(port) || defaultPort,
    });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (answer) => done(accept(answer)));
    socket.once('connect', () => {
      if (greeting) socket.write(greeting);
      else done(true);
    });
  });
}

/** A PostgreSQL SSLRequest: every server answers it with one byte, `S` or `N`. */
const POSTGRES_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** True when `command` is an executable file on `PATH` (or an executable path itself). */
export function hasProgram(command: string): boolean {
  const candidates = command.includes('/')
    ? [command]
    : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The services of `npm test`. */
/** Whether PostgreSQL answers its SSL request at the test database's address. */
function postgresProbe(): Promise<boolean> {
  return probeTcp(testDatabaseUrl, 5432, POSTGRES_SSL_REQUEST, (answer) => answer[0] === 0x53 || answer[0] === 0x4e);
}

export const TEST_SERVICES: ServiceNeed[] = [
  {
    name: 'PostgreSQL',
    howToEnable: `a PostgreSQL server at ${testDatabaseUrl} (or set TIDINGS_TEST_DATABASE_URL)`,
    suites: [
      'packages/store-postgres/**/*.test.ts',
      'packages/dashboard/src/postgres/**/*.test.ts',
      'packages/cli/test/store-choice.test.ts',
      'test/readme/embedding.test.ts',
      'test/e2e/example-orders-postgres.test.ts',
      'test/e2e/example-orders-prisma.test.ts',
      'test/deploy/**/*.test.ts',
    ],
    probe: postgresProbe,
  },
  {
    name: 'Redis',
    howToEnable: `a Redis server at ${testRedisUrl} (or set TIDINGS_TEST_REDIS_URL)`,
    suites: ['packages/redis/src/**/*.test.ts', 'packages/redis/test/**/*.test.ts'],
    probe: () =>
      probeTcp(testRedisUrl, 6379, Buffer.from('PING\r\n'), (answer) => answer.toString().startsWith('+PONG')),
  },
  {
    name: 'redis-server',
    // redis-cli joins the private Redis Cluster of the cluster suites.
    howToEnable: 'the redis-server and redis-cli programs on PATH (apt-get install -y redis-server)',
    suites: ['packages/redis/**/*.test.ts', 'packages/cli/test/serve-redis.test.ts', 'test/deploy/**/*.test.ts'],
    probe: async () => hasProgram('redis-server') && hasProgram('redis-cli'),
  },
  {
    name: 'nginx',
    howToEnable: 'the nginx program on PATH (apt-get install -y nginx-light)',
    suites: ['test/deploy/**/*.test.ts'],
    probe: async () => hasProgram('nginx'),
  },
];

/** The services of `npm run test:browser`. */
export const BROWSER_TEST_SERVICES: ServiceNeed[] = [
  {
    name: 'Chromium',
    howToEnable: `Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
    suites: ['test/browser/**/*.test.ts'],
    probe: async () => hasProgram(chromiumPath),
  },
  {
    name: 'PostgreSQL',
    howToEnable: `a PostgreSQL server at ${testDatabaseUrl} (or set TIDINGS_TEST_DATABASE_URL)`,
    suites: ['test/browser/example-orders.test.ts'],
    probe: postgresProbe,
  },
];

/** What a run leaves out, and the line that says so; see {@link planSuites}. */
export interface SuitePlan {
  /** Globs to add to the run's `exclude`. */
  exclude: string[];
  /** The summary line, or null when nothing is left out. */
  summary: string | null;
}

/** The variable under which a missing service fails the run instead of skipping its suites. */
export const REQUIRE_SERVICES_VARIABLE = 'TIDINGS_TEST_REQUIRE_SERVICES';

/**
 * Decides from the probes' results what to leave out. Throws when a service is missing and
 * `requireAll` is set, so that CI never passes by skipping.
 */
export function planSuites(needs: ServiceNeed[], available: boolean[], requireAll: boolean): SuitePlan {
  const missing = needs.filter((_, index) => !available[index]);
  if (missing.length === 0) return { exclude: [], summary: null };
  const names = missing.map((need) => need.name).join(', ');
  if (requireAll) {
    throw new Error(
      `${REQUIRE_SERVICES_VARIABLE} is set and these test services are missing: ${names}. ` +
        missing.map((need) => `${need.name}: ${need.howToEnable}`).join('; '),
    );
  }
  const exclude = [...new Set(missing.flatMap((need) => need.suites))];
  const summary =
    `SKIPPED SUITES: ${names} not available, so these suites did not run: ${exclude.join(', ')}. ` +
    `To run them: ${missing.map((need) => need.howToEnable).join('; ')}. ` +
    `${REQUIRE_SERVICES_VARIABLE}=1 makes a missing service fail the run.`;
  return { exclude, summary };
}

/** Probes every service of `needs` at once and plans the run (see {@link planSuites}). */
export async function planRun(needs: ServiceNeed[], env: NodeJS.ProcessEnv = process.env): Promise<SuitePlan> {
  const available = await Promise.all(needs.map((need) => need.probe()));
  return planSuites(needs, available, env[REQUIRE_SERVICES_VARIABLE] === '1');
}

/**
 * A vitest reporter that prints the plan's summary once more after vitest's own summary, where a
 * reader of the run's end sees it. Nothing when nothing was left out.
 */
export function skippedSuitesReporter(plan: SuitePlan) {
  return {
    onTestRunEnd() {
      if (plan.summary) process.stdout.write(`\n\x1b[1;33m${'!'.repeat(8)} ${plan.summary}\x1b[0m\n\n`);
    },
  };
}
