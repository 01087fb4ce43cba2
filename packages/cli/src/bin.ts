import { runCli } from './run.js';

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
