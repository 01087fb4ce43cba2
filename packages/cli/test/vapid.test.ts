import { join } from 'node:path';
import { until } from '@tidings/core/testing';
import { assertBuilt, runTidings, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let remove: () => Promise<void>;
let db: string;

beforeAll(async () => {
  assertBuilt();
  const temp = await tempDir();
  remove = temp.remove;
  db = join(temp.dir, 'vapid.db');
});
afterAll(async () => remove());

interface VapidKey {
  object: string;
  public_key: string;
  created_at: string;
  subject?: string | null;
}

describe('tidings vapid', () => {
  it('shows one key pair (made on first use), its public key only, and rotates it', async () => {
    const first = await tidingsJson<VapidKey>(['vapid', 'show', '--db', db]);
    expect(first).toEqual({
      object: 'vapid_key',
      public_key: expect.stringMatching(/^B[\w-]{86}$/),
      created_at: expect.any(String),
      subject: null,
    });
    expect(await tidingsJson<VapidKey>(['vapid', 'show', '--db', db])).toEqual(first);
    const shown = await runTidings(['vapid', 'show', '--db', db], { TIDINGS_VAPID_SUBJECT: 'mailto:ops@example.com' });
    expect(shown.stdout).toContain(`public key ${first.public_key}`);
    expect(shown.stdout).toContain('subject mailto:ops@example.com');

    const rotated = await tidingsJson<VapidKey>(['vapid', 'rotate', '--db', db]);
    expect(rotated.public_key).toMatch(/^B[\w-]{86}$/);
    expect(rotated.public_key).not.toBe(first.public_key);
    expect((await tidingsJson<VapidKey>(['vapid', 'show', '--db', db])).public_key).toBe(rotated.public_key);
    // The private key is never printed.
    const text = await runTidings(['vapid', 'rotate', '--db', db]);
    expect(text.stdout.match(/[\w-]{43,}/g)).toHaveLength(1);
  });
});

describe('first use by several processes at once', () => {
  it('ends with one key pair', async () => {
    const fresh = db.replace(/vapid\.db$/, 'vapid-race.db');
    const shown = await Promise.all([1, 2, 3].map(() => tidingsJson<VapidKey>(['vapid', 'show', '--db', fresh])));
    expect(shown[0]!.public_key).toMatch(/^B[\w-]{86}$/);
    expect(new Set(shown.map((key) => key.public_key)).size).toBe(1);
  });
});

describe('tidings serve and Web Push', () => {
  it('says at start whether Web Push is on, with the stored public key', async () => {
    const off = await startServe(['--db', db, '--port', '0']);
    try {
      expect(off.stdout()).not.toMatch(/web push on/);
      await until(() => off.stderr().includes('web push off'), { what: 'the web push off line' });
      const connect = await fetch(`${off.url}/v1/openapi.json`);
      expect(connect.status).toBe(200);
    } finally {
      off.child.kill('SIGTERM');
      await off.exited;
    }
    const key = (await tidingsJson<VapidKey>(['vapid', 'show', '--db', db])).public_key;
    const on = await startServe(['--db', db, '--port', '0', '--vapid-subject', 'https://example.com/contact']);
    try {
      const line = await on.waitForStdout(/^web push on: .*$/m);
      expect(line).toMatch(
        new RegExp(`^web push on: VAPID subject https://example\\.com/contact, public key ${key}$`, 'm'),
      );
    } finally {
      on.child.kill('SIGTERM');
      await on.exited;
    }
  });

  it('refuses a bad VAPID subject, and --push-* flags without one', async () => {
    const bad = await runTidings(['serve', '--db', db, '--port', '0', '--vapid-subject', 'ops@example.com']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/VAPID subject must be a mailto: or https: URL/);
    const flags = await runTidings(['serve', '--db', db, '--port', '0', '--push-allow-http']);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toMatch(/--push-\* flags need a --vapid-subject/);
  });
});
