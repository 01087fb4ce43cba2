/** `tidings`: the standalone server and the operator CLI, also usable from code. */
export { type AdminCommand, adminCommands, type CommandOutput } from './admin-commands.js';
export { withAdmin } from './admin-session.js';
export { configKeys, loadConfig, type ServerConfig } from './config.js';
export { type DemoPageContext, registerDemoPage } from './demo.js';
export { type DemoCredentials, demoFilePath, demoRecipient, ensureDemo } from './demo-setup.js';
export { type CliIo, processIo } from './io.js';
export { runCli } from './run.js';
export { createServerApp, type RunningServer, type StartServerOptions, startServer } from './server.js';
