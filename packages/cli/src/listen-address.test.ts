import { describe, expect, it } from 'vitest';
import { UsageError } from './args.js';
import { parseListenAddress } from './listen-address.js';

describe('parseListenAddress', () => {
  it('reads HOST:PORT, [IPv6]:PORT and a bare PORT on loopback', () => {
    expect(parseListenAddress('127.0.0.1:9464', '--metrics')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListenAddress('0.0.0.0:0', '--metrics')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(parseListenAddress('localhost:9464', '--metrics')).toEqual({ host: 'localhost', port: 9464 });
    expect(parseListenAddress('[::1]:9464', '--metrics')).toEqual({ host: '::1', port: 9464 });
    expect(parseListenAddress('9464', '--metrics')).toEqual({ host: '127.0.0.1', port: 9464 });
  });

  it('refuses anything else as a usage error naming its source', () => {
    for (const bad of ['', 'host', 'host:', ':9464', '127.0.0.1:65536', '::1:9464', 'a b:1', 'http://x:1']) {
      expect(() => parseListenAddress(bad, 'TIDINGS_METRICS'), bad).toThrow(UsageError);
    }
    expect(() => parseListenAddress('x:99999', 'TIDINGS_METRICS')).toThrow(/TIDINGS_METRICS must be HOST:PORT/);
  });
});
