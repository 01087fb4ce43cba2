import type { NextConfig } from 'next';

const config: NextConfig = {
  // Tidings' packages run as Node.js loads them, not bundled: one copy of each per process, the
  // native SQLite driver's path resolved by Node.js itself.
  serverExternalPackages: ['@tidings/core', '@tidings/next', '@tidings/store-sqlite', 'better-sqlite3'],
};

export default config;
