import { UsageError } from './args.js';

/** Where the metrics listener binds. */
export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Reads `HOST:PORT`, `[IPv6]:PORT` or a bare `PORT` (on 127.0.0.1), as `--metrics` and
 * `TIDINGS_METRICS` take it; anything else is a usage error.
 */
export function parseListenAddress(value: string, source: string): ListenAddress {
  const match = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):)?(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65_535) {
    throw new UsageError(`${source} must be HOST:PORT (e.g. 127.0.0.1:9464), got "${value}"`, 'serve');
  }
  return { host: match[1] ?? match[2] ?? '127.0.0.1', port };
}
