import { TidingsError } from '@tidings/core';
import { databasePath, expectPositionals, integerFlag, parseCommand } from './args.js';
import { loadConfig, type ServerConfig } from './config.js';
import { demoText } from './demo-setup.js';
import { usage } from './help.js';
import { type CliIo, reportFailure } from './io.js';
import { describeTarget, storeTarget } from './open-store.js';
import { startServer } from './server.js';

const serveOptions = {
  port: { type: 'string' },
  host: { type: 'string' },
  'trust-proxy': { type: 'string' },
  config: { type: 'string' },
  demo: { type: 'boolean' },
  'sqlite-synchronous': { type: 'string' },
} as const;

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
  const port = integerFlag(parsed, 'port', 'serve', { min: 0, max: 65_535 }) ?? 8787;
  const trustProxy = integerFlag(parsed, 'trust-proxy', 'serve', { min: 0, max: 100 });
  const host = typeof parsed.values.host === 'string' ? parsed.values.host : '127.0.0.1';
  const json = parsed.values.json === true;
  const db = databasePath(parsed, io.env);
  const sqliteSynchronous = parsed.values['sqlite-synchronous'] ?? 'full';
  if (sqliteSynchronous !== 'full' && sqliteSynchronous !== 'normal') {
    return reportFailure(
      io,
      new TidingsError(
        'VALIDATION_FAILED',
        `serve: --sqlite-synchronous must be full or normal, not ${sqliteSynchronous}`,
      ),
      json,
    );
  }

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    const config: ServerConfig = typeof parsed.values.config === 'string' ? await loadConfig(parsed.values.config) : {};
    server = await startServer({
      db,
      port,
      host,
      demo: parsed.values.demo === true,
      sqliteSynchronous,
      tidings: { ...config, ...(trustProxy === undefined ? {} : { trustProxy }) },
    });
  } catch (error) {
    return reportFailure(io, error, json);
  }

  io.stdout(`listening on ${server.url}`);
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
      io.stdout(JSON.stringify({ object: 'demo', ...server.demo.credentials, url: reachable, file: server.demo.file }));
    } else {
      io.stdout(demoText(server.demo.credentials, reachable, server.demo.file));
    }
  }

  return new Promise<number>((resolve) => {
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
}
