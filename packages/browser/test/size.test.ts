import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * The script-tag build is what a page downloads before it can show anything: its gzipped size is
 * a budget, checked here on the built file (`npm test` builds first) and printed in the README.
 */
const gzippedSize = (name: string) => {
  const path = fileURLToPath(new URL(`../dist/${name}`, import.meta.url));
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  return gzipSync(readFileSync(path)).length;
};

/** The budgets, in bytes of gzip at its default level (what `npm run size` prints). */
const budgets = {
  'tidings.global.js': 5119, // under 5 KiB
  // The same SDK with Web Push (enablePush, disablePush): for the pages that want it.
  'tidings-push.global.js': 7679, // under 7.5 KiB
  // The SDK with the inbox (`connection.inbox`) and the <tidings-inbox> element.
  'tidings-inbox.global.js': 11263, // under 11 KiB
};

describe('the script-tag builds', () => {
  for (const [name, budgetBytes] of Object.entries(budgets)) {
    it(`${name} stays within ${budgetBytes} bytes gzipped`, () => {
      const gzipped = gzippedSize(name);
      expect(gzipped).toBeGreaterThan(1000); // a build that lost its content is no success either
      expect(gzipped).toBeLessThanOrEqual(budgetBytes);
    });
  }

  it('tidings.global.js keeps no Web Push code: the build flag drops it', () => {
    expect(gzippedSize('tidings-push.global.js') - gzippedSize('tidings.global.js')).toBeGreaterThan(1000);
    const script = readFileSync(fileURLToPath(new URL('../dist/tidings.global.js', import.meta.url)), 'utf8');
    expect(script).not.toMatch(/push-subscription|vapid_public_key|PushManager/);
  });

  it('only tidings-inbox.global.js keeps the inbox: the build flag drops it from the others', () => {
    const inboxCode = /inbox_update|\/inbox|tidings-inbox/;
    for (const name of ['tidings.global.js', 'tidings-push.global.js']) {
      expect(readFileSync(fileURLToPath(new URL(`../dist/${name}`, import.meta.url)), 'utf8')).not.toMatch(inboxCode);
    }
    const script = readFileSync(fileURLToPath(new URL('../dist/tidings-inbox.global.js', import.meta.url)), 'utf8');
    expect(script).toMatch(inboxCode);
  });
});
