import { closeTidings } from './lib/tidings';

// On SIGTERM `next start` closes its server, which waits for the open connections: closing
// Tidings ends its event streams, so that the server can close and the process end.
process.once('SIGTERM', () => void closeTidings());
