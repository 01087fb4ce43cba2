// Diagnostics for a benchmark's server process, loaded with
//   BENCH_TRACE_DIR=/some/dir NODE_OPTIONS="--require ./bench/lib/server-trace.cjs" node bench/fanout.js
// and summarized with `node bench/trace-summary.js /some/dir`. In a `tidings serve` process or a
// bench/servers/*.js peer (other processes ignore it) it records, and writes to
// BENCH_TRACE_DIR/<name>-<pid>.json every second:
//   - every POST request: when it came (ms since the process started) and how long until its
//     answer was written ('finish');
//   - every WAL flush of the SQLite store (`fs.fdatasync`): when it began and how long until its
//     callback ran on the event loop (the disk's time and the wait for the loop);
//   - every garbage collection (start, duration, kind);
//   - every gap of more than 6 ms between ticks of a 1 ms timer: the event loop held, or the
//     process not scheduled.
// It patches `fs.fdatasync` and `http.Server.prototype.emit`: for diagnosis only, never in a
// measured run whose figures are reported.
const { PerformanceObserver, performance } = require('node:perf_hooks');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.BENCH_TRACE_DIR;
const script = process.argv[1] ?? '';
const name = process.argv.includes('serve') ? 'tidings' : path.basename(script, path.extname(script));
const traced = dir && (process.argv.includes('serve') || script.includes(`${path.sep}servers${path.sep}`));

if (traced) {
  const out = path.join(dir, `${name}-${process.pid}.json`);
  const trace = { requests: [], flushes: [], gcs: [], gaps: [] };
  // Starts and durations to 0.01 ms: with starts in whole milliseconds, a flush that began in a
  // request's last half millisecond could round to after the request's end.
  const ms = (d) => Math.round(d * 100) / 100;

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      trace.gcs.push([ms(entry.startTime), ms(entry.duration), entry.detail?.kind]);
  }).observe({ entryTypes: ['gc'] });

  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    const [request, response] = args;
    if (event === 'request' && request.method === 'POST') {
      const start = performance.now();
      response.on('finish', () => trace.requests.push([ms(start), ms(performance.now() - start)]));
    }
    return emit.call(this, event, ...args);
  };

  const fdatasync = fs.fdatasync;
  fs.fdatasync = function (fd, callback) {
    const start = performance.now();
    return fdatasync.call(this, fd, (error) => {
      trace.flushes.push([ms(start), ms(performance.now() - start)]);
      callback(error);
    });
  };

  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 6) trace.gaps.push([ms(last), ms(now - last)]);
    last = now;
  }, 1).unref();
  setInterval(() => fs.writeFileSync(out, JSON.stringify(trace)), 1000).unref();
}
