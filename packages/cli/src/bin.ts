import { semiSpaceRelaunch } from './young-generation.js';

// `tidings serve` bounds V8's young generation, which only a Node.js option can do: the process
// replaces itself (same pid, same stdio) with one started with it, before loading anything else.
const relaunch = semiSpaceRelaunch(process.argv.slice(2), process.execArgv, process.env);
const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
if (relaunch !== null && typeof execve === 'function') {
  execve.call(process, process.execPath, [process.execPath, ...relaunch, ...process.argv.slice(1)], process.env);
}

const { runCli } = await import('./run.js');
runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; should some handle linger anyway, do not hang on it.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
