// Preloaded into a bench's server (`node --require`) by `startServer`'s `memoryReport`: on
// SIGUSR2 the process writes what its memory is made of to a file named by its pid, which
// `memoryUsage` in common.js reads. RSS alone mixes V8's heap with what Node holds outside it
// (sockets, HTTP parsers, buffers); this tells the two apart.
const { renameSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const v8 = require('node:v8');

process.on('SIGUSR2', () => {
  const usage = process.memoryUsage();
  const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  const file = join(tmpdir(), `tidings-bench-memory-${process.pid}.json`);
  // Written whole, then renamed, so that a reader never sees half of it.
  writeFileSync(`${file}.part`, JSON.stringify({ ...usage, youngGeneration: young?.space_size ?? 0 }));
  renameSync(`${file}.part`, file);
});
