import { type PushOptions, RATE_LIMIT_HEADER_FORMS, type RateLimitHeaderForm } from '@tidings/core';
import { databasePath, expectPositionals, integerFlag, parseCommand, parseWholeNumber, UsageError } from './args.js';
import { loadConfig, type ServerConfig, type WebhooksConfig } from './config.js';
import { demoSignInText, demoText } from './demo-setup.js';
import { usage } from './help.js';
import { type CliIo, reportFailure } from './io.js';
import { type ListenAddress, parseListenAddress } from './listen-address.js';
import { describeTarget, storeTarget } from './open-store.js';
import { loadSecretKeys } from './secret-keys.js';
import { startServer } from './server.js';
import { chosenSemiSpaceMb } from './young-generation.js';

const serveOptions = {
  port: { type: 'string' },
  host: { type: 'string' },
  'trust-proxy': { type: 'string' },
  'rate-limit-headers': { type: 'string' },
  config: { type: 'string' },
  demo: { type: 'boolean' },
  metrics: { type: 'string' },
  'sqlite-synchronous': { type: 'string' },
  'max-semi-space-size': { type: 'string' },
  redis: { type: 'string' },
  'redis-cluster': { type: 'string' },
  'redis-unreachable': { type: 'string' },
  smtp: { type: 'string' },
  'mail-from': { type: 'string' },
  signup: { type: 'string' },
  'no-dashboard': { type: 'boolean' },
  'vapid-subject': { type: 'string' },
  'push-allow-hosts': { type: 'string' },
  'push-allow-http': { type: 'boolean' },
  'push-allow-private': { type: 'boolean' },
  'webhooks-allow-http': { type: 'boolean' },
  'webhooks-allow-private': { type: 'boolean' },
} as const;

/**
 * How webhooks are sent: `--webhooks-allow-http` and `--webhooks-allow-private`, else
 * `$TIDINGS_WEBHOOKS_ALLOW_HTTP=1` and `$TIDINGS_WEBHOOKS_ALLOW_PRIVATE=1`, else the config file's
 * `webhooks`. Webhooks are always sent; these only loosen the outbound rules (tests only).
 */
function webhookOptions(
  values: { [name: string]: string | boolean | undefined },
  env: NodeJS.ProcessEnv,
  configured: WebhooksConfig | undefined,
): WebhooksConfig {
  const allowHttp =
    values['webhooks-allow-http'] === true || env.TIDINGS_WEBHOOKS_ALLOW_HTTP === '1' || configured?.allowHttp === true;
  const allowPrivateAddresses =
    values['webhooks-allow-private'] === true ||
    env.TIDINGS_WEBHOOKS_ALLOW_PRIVATE === '1' ||
    configured?.allowPrivateAddresses === true;
  return { allowHttp, allowPrivateAddresses };
}

/** `--metrics HOST:PORT`, else `TIDINGS_METRICS`; off when neither is set. */
function metricsAddress(flag: string | boolean | undefined, env: NodeJS.ProcessEnv): ListenAddress | null {
  if (typeof flag === 'string') return parseListenAddress(flag, '--metrics');
  return env.TIDINGS_METRICS ? parseListenAddress(env.TIDINGS_METRICS, 'TIDINGS_METRICS') : null;
}

const SIGNUP_POLICIES = ['open', 'invite', 'closed'] as const;

/**
 * Web Push from `--vapid-subject` (else `$TIDINGS_VAPID_SUBJECT`, else the config file's
 * `push.vapidSubject`) and the `--push-*` flags over the config file's `push`; undefined (off)
 * without a subject.
 */
function pushOptions(
  values: { [name: string]: string | boolean | undefined },
  env: NodeJS.ProcessEnv,
  configured: PushOptions | undefined,
): PushOptions | undefined {
  const flag = values['vapid-subject'];
  const vapidSubject =
    (typeof flag === 'string' ? flag : undefined) ??
    (env.TIDINGS_VAPID_SUBJECT || undefined) ??
    configured?.vapidSubject;
  const hosts = values['push-allow-hosts'];
  const tuned = hosts !== undefined || values['push-allow-http'] === true || values['push-allow-private'] === true;
  if (vapidSubject === undefined) {
    if (tuned) throw new UsageError('the --push-* flags need a --vapid-subject (Web Push is off without one)', 'serve');
    return undefined;
  }
  return {
    ...configured,
    vapidSubject,
    ...(typeof hosts === 'string'
      ? {
          allowedHosts: hosts
            .split(',')
            .map((host) => host.trim())
            .filter(Boolean),
        }
      : {}),
    ...(values['push-allow-http'] === true ? { allowHttp: true } : {}),
    ...(values['push-allow-private'] === true ? { allowPrivateAddresses: true } : {}),
  };
}

/**
 * `tidings serve`: starts the server, prints `listening on URL` once it accepts connections,
 * and on SIGTERM or SIGINT closes it and resolves with 0.
 */
export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand('serve', args, serveOptions);
  if (parsed.values.help === true) {
    io.stdout(usage('serve'));
    return 0;
  }
  expectPositionals(parsed, [], 'serve');
  // Applied before this command ran (bin.ts starts the process again with it); refused here.
  if (chosenSemiSpaceMb(['serve', ...args], io.env) === null) {
    throw new UsageError(
      '--max-semi-space-size (or TIDINGS_MAX_SEMI_SPACE_SIZE) must be a whole number of MB from 0 to 1024',
      'serve',
    );
  }
  const portRange = { min: 0, max: 65_535 };
  // TIDINGS_PORT, like TIDINGS_DB, lets `npm start` (a fixed command line) serve elsewhere.
  const port =
    integerFlag(parsed, 'port', 'serve', portRange) ??
    parseWholeNumber(io.env.TIDINGS_PORT || undefined, 'TIDINGS_PORT', 'serve', portRange) ??
    8787;
  const trustProxy = integerFlag(parsed, 'trust-proxy', 'serve', { min: 0, max: 100 });
  const rateLimitHeaders = parsed.values['rate-limit-headers'];
  if (rateLimitHeaders !== undefined && !RATE_LIMIT_HEADER_FORMS.includes(rateLimitHeaders as RateLimitHeaderForm)) {
    throw new UsageError(`--rate-limit-headers must be one of ${RATE_LIMIT_HEADER_FORMS.join(', ')}`, 'serve');
  }
  const host = typeof parsed.values.host === 'string' ? parsed.values.host : '127.0.0.1';
  const json = parsed.values.json === true;
  const db = databasePath(parsed, io.env);
  const metrics = metricsAddress(parsed.values.metrics, io.env);
  const sqliteSynchronous = parsed.values['sqlite-synchronous'] ?? 'full';
  if (sqliteSynchronous !== 'full' && sqliteSynchronous !== 'normal') {
    throw new UsageError('--sqlite-synchronous must be full or normal', 'serve');
  }
  const redisUrl =
    typeof parsed.values.redis === 'string' ? parsed.values.redis : io.env.TIDINGS_REDIS_URL || undefined;
  const redisCluster =
    typeof parsed.values['redis-cluster'] === 'string'
      ? parsed.values['redis-cluster']
      : io.env.TIDINGS_REDIS_CLUSTER || undefined;
  if (redisUrl !== undefined && redisCluster !== undefined) {
    throw new UsageError('--redis and --redis-cluster: one or the other', 'serve');
  }
  const whenUnreachable = parsed.values['redis-unreachable'] ?? 'fallback';
  if (whenUnreachable !== 'fallback' && whenUnreachable !== 'refuse') {
    throw new UsageError('--redis-unreachable must be fallback or refuse', 'serve');
  }
  const signup = typeof parsed.values.signup === 'string' ? parsed.values.signup : 'open';
  if (!(SIGNUP_POLICIES as readonly string[]).includes(signup)) {
    throw new UsageError('--signup must be open, invite or closed', 'serve');
  }
  const smtpUrl = typeof parsed.values.smtp === 'string' ? parsed.values.smtp : io.env.TIDINGS_SMTP_URL || null;
  const mailFrom = typeof parsed.values['mail-from'] === 'string' ? parsed.values['mail-from'] : undefined;

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    const {
      webhooks: configuredWebhooks,
      push: configuredPush,
      requestLog,
      secretsKeyFile,
      ...config
    }: ServerConfig = typeof parsed.values.config === 'string' ? await loadConfig(parsed.values.config) : {};
    const secrets = await loadSecretKeys(io.env, secretsKeyFile ?? null);
    const push = pushOptions(parsed.values, io.env, configuredPush);
    const webhooks = webhookOptions(parsed.values, io.env, configuredWebhooks);
    server = await startServer({
      db,
      port,
      host,
      demo: parsed.values.demo === true,
      metrics,
      sqliteSynchronous,
      webhooks,
      secrets,
      ...(push === undefined ? {} : { push }),
      ...(requestLog === undefined ? {} : { requestLog }),
      ...(redisUrl === undefined ? {} : { redis: { url: redisUrl, whenUnreachable } }),
      ...(redisCluster === undefined ? {} : { redis: { cluster: redisCluster, whenUnreachable } }),
      dashboard: {
        enabled: parsed.values['no-dashboard'] !== true,
        signup: signup as (typeof SIGNUP_POLICIES)[number],
        smtpUrl,
        ...(mailFrom ? { mailFrom } : {}),
      },
      tidings: {
        ...config,
        ...(trustProxy === undefined ? {} : { trustProxy }),
        ...(rateLimitHeaders === undefined ? {} : { rateLimitHeaders: rateLimitHeaders as RateLimitHeaderForm }),
      },
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return reportFailure(io, error, json);
  }

  // The signals are handled before the first line is printed: a supervisor (or a test) that
  // stops the server as soon as it reads a line must not find Node's default, an exit with no
  // close, still in place.
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      // A second signal while closing means: stop now.
      process.once(signal, () => resolve(1));
      server.close().then(
        () => resolve(0),
        (error: unknown) => resolve(reportFailure(io, error, json)),
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  io.stdout(`listening on ${server.url}`);
  if (server.metricsUrl) io.stdout(`metrics on ${server.metricsUrl}`);
  if (server.push !== null) {
    io.stdout(`web push on: VAPID subject ${server.push.vapidSubject}, public key ${server.push.publicKey}`);
  } else {
    // A log line, as the server's other lines on stderr are.
    io.stderr(
      JSON.stringify({
        level: 'info',
        time: new Date().toISOString(),
        message: 'web push off: no --vapid-subject; browsers are reached by their streams and polls only',
        task: 'start',
      }),
    );
  }
  if (parsed.values.demo === true) {
    if (!/^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/.test(host)) {
      io.stderr(
        `warning: --demo on ${host} shows the demo's live key at /demo and mints tokens for anyone who reaches it`,
      );
    }
    // The URLs to paste: a wildcard bind address is not one a client can reach.
    const reachable = server.url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//localhost');
    if (!server.demo) {
      io.stderr(
        `demo: ${describeTarget(storeTarget(db))} already holds accounts that are not the demo's, or a demo whose keys were not saved; use another --db for a fresh demo`,
      );
    } else if (json) {
      io.stdout(
        JSON.stringify({
          object: 'demo',
          ...server.demo.credentials,
          url: reachable,
          file: server.demo.file,
          dashboard: server.demo.signIn && { url: `${reachable}/dashboard`, ...server.demo.signIn },
        }),
      );
    } else {
      io.stdout(demoText(server.demo.credentials, reachable, server.demo.file));
      if (server.demo.signIn) io.stdout(demoSignInText(server.demo.signIn, reachable));
    }
  }

  return stopped;
}
