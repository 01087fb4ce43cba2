#!/usr/bin/env node
// The `tidings` command. npm links a package's bin when it installs the package, which in this
// repository is before `prepare` builds dist/: a bin pointing into dist/ would not be linked on a
// fresh clone. This committed file exists from the start and loads the build when it runs.

// Checked before anything is loaded: on an older line the SQLite driver crashes the process when
// it loads, and the build may use what that line lacks. Plain syntax only, so that it parses there.
const needed = 22;
const running = process.versions.node;
if (Number.parseInt(running, 10) < needed) {
  console.error(`tidings: Node.js ${needed} or newer is required; this is Node.js ${running}`);
  process.exit(1);
}

try {
  await import('../dist/bin.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/bin.js')) throw error;
  console.error('tidings: the CLI is not built yet; run `npm run build` in the repository first');
  process.exit(1);
}
