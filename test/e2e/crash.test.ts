import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  type ServedFile,
  servedFile,
} from '@tidings/test-support/cli-process.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `kill -9` of the standalone server while 50 clients send, then a restart on the same file:
 * every send acknowledged with 201 is there, every request the kill cut off succeeds on its
 * first retry with the same Idempotency-Key (a replay when it had committed, a fresh send when
 * it had not), and no key produced two notifications.
 */
const CLIENTS = 50;
const KILL_AFTER_ACKNOWLEDGED = 400;

let file: ServedFile;
let liveKey: string;

beforeAll(async () => {
  assertBuilt();
  const limit = 1_000_000;
  file = await servedFile({ limits: { perKey: limit, perProject: limit, perAccount: limit }, staleBrowserMs: 600_000 });
  const { projectId } = await createProjectWithCli(file.db);
  liveKey = (await createKeyWithCli(file.db, projectId, 'live')).key;
});

afterAll(async () => {
  await file?.close();
});

const serve = () => file.serve();

function send(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/notifications`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${liveKey}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': key,
    },
    body: JSON.stringify({ recipient: 'crash-user', title: `send ${key}` }),
  });
}

describe('a crash under load', () => {
  it('loses no acknowledged send and lets every cut request succeed at once on retry', async () => {
    const first = await serve();
    const token = await fetch(`${first.url}/v1/connect-tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'crash-user' }),
    }).then((response) => response.json());
    // The polling step registers a connected browser without holding a stream.
    expect((await fetch(token.connect_url, { method: 'POST' })).status).toBe(201);

    const acknowledged = new Map<string, string>();
    const cut: string[] = [];
    let killed = false;
    const client = async (worker: number) => {
      for (let n = 0; ; n++) {
        const key = `crash-${worker}-${n}`;
        let status: number;
        let body: { id: string };
        try {
          const response = await send(first.url, key);
          status = response.status;
          body = await response.json();
        } catch (error) {
          if (!killed) throw error;
          cut.push(key);
          return;
        }
        expect(status).toBe(201);
        acknowledged.set(key, body.id);
        if (!killed && acknowledged.size >= KILL_AFTER_ACKNOWLEDGED) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, worker) => client(worker)));
    await first.exited;
    // Each client stops at its first failure, and every one was in flight when the kill came.
    expect(cut).toHaveLength(CLIENTS);

    const second = await serve();
    const retried = await Promise.all(
      cut.map(async (key) => {
        const response = await send(second.url, key);
        return { key, status: response.status, body: await response.json() };
      }),
    );
    for (const retry of retried) {
      expect(retry, `retry of ${retry.key}`).toMatchObject({ status: 201, body: { object: 'notification' } });
      acknowledged.set(retry.key, retry.body.id);
    }

    // Every acknowledged send reads back, and a retry of one replays the same notification.
    const ids = [...acknowledged.values()];
    const reads = await Promise.all(
      ids.map((id) =>
        fetch(`${second.url}/v1/notifications/${id}`, { headers: { Authorization: `Bearer ${liveKey}` } }),
      ),
    );
    expect(reads.map((read) => read.status).filter((status) => status !== 200)).toEqual([]);
    const [someKey, someId] = [...acknowledged.entries()][0]!;
    const replay = await send(second.url, someKey);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await replay.json()).id).toBe(someId);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const check = new Database(file.db, { readonly: true });
    try {
      // One notification per key: nothing sent twice, nothing lost.
      expect(new Set(ids).size).toBe(acknowledged.size);
      expect(check.prepare('SELECT count(*) FROM notifications').pluck().get()).toBe(acknowledged.size);
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
  });
});
