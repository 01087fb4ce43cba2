// The counting sinks of the outbound benchmarks (servers/push-sink.js, servers/webhook-sink.js),
// reached over HTTP: their requests, their counts, and a wait for a count.
import { sleep } from './common.js';

/**
 * A client of the sink at `urlOf()` (read at each call: the sink may start after this is made).
 * `what` names it in the error of a wait that times out.
 */
export function sinkClient(urlOf, what, defaultTimeoutMs = 120_000) {
  const request = (path, init) => fetch(`${urlOf()}${path}`, init);
  const stats = async () => (await request('/stats')).json();
  return {
    request,
    stats,
    /** Resolves with the sink's stats once it counted `count` messages. */
    async waitForCount(count, timeoutMs = defaultTimeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = await stats();
        if (current.count >= count) return current;
        if (Date.now() > deadline) throw new Error(`${what} got ${current.count} of ${count} messages`);
        await sleep(20);
      }
    },
  };
}
