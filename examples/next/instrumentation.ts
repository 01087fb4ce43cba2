// Runs once as the server starts; the Node.js runtime's part is a module of its own.
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') await import('./instrumentation-node');
}
