import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test/harness.js';
import { createTidings, type Feature, inbox, requestLog, type TidingsOptions } from './index.js';
import { webhooks } from './node/index.js';
import { declareRoute } from './pipeline/route.js';
import type { Store } from './ports/store.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(extra: Partial<TidingsOptions> = {}) {
  h = await createHarness({ extra });
  return h;
}

const INBOX_COUNTS = '/v1/recipients/u/inbox/counts';

/**
 * The smallest feature there can be, of the kind an application may write: a route of its own,
 * a job kind of its own, and a job added to every live send.
 */
function pingFeature(calls: string[]): Feature {
  return {
    name: 'ping',
    install({ options }) {
      return {
        routes: [
          declareRoute({
            path: '/v1/ping/{word}',
            cors: 'api',
            methods: {
              GET: {
                handler: async (ctx) => new Response(`pong ${ctx.params.word}`),
                operation: { operationId: 'ping', summary: 'Ping', description: 'Pong.', tags: [], responses: {} },
              },
            },
          }),
        ],
        jobs: {
          ping: async (job) => {
            calls.push(`ran ${(job.payload as { id: string }).id}`);
          },
        },
        sendJobs({ notification }) {
          calls.push(`send ${notification.recipient}`);
          return (created) => [
            {
              kind: 'ping',
              key: `ping:${created.notification.id}`,
              projectId: created.notification.projectId,
              payload: { id: created.notification.id },
              runAt: options.clock.now(),
            },
          ];
        },
        async sweep({ purge }) {
          calls.push(`sweep ${purge}`);
        },
        async close() {
          calls.push('closed');
        },
      };
    },
  };
}

describe('features', () => {
  it('are the inbox and the request log when none are given', async () => {
    const harness = await start();
    const counts = await harness.request(INBOX_COUNTS, { key: harness.liveKey });
    expect(counts.status).toBe(200);
    expect(harness.tidings.admin.settings.requestLog).toEqual({ enabled: true, retentionDays: 7 });
  });

  it('are only those given: without the inbox its routes are not answered, without Web Push a subscription is refused', async () => {
    const harness = await start({ features: [] });
    const counts = new Request(`http://tidings.test${INBOX_COUNTS}`, {
      headers: { Authorization: `Bearer ${harness.liveKey}` },
    });
    expect((await harness.tidings.fetch(counts)).status).toBe(404);
    expect(harness.tidings.handles('/v1/recipients/u/inbox')).toBe(false);
    expect(harness.tidings.admin.settings.requestLog.enabled).toBe(false);
    const browser = await harness.connectBrowser('u');
    const put = await harness.request(`/v1/browsers/${browser.browserId}/push-subscription`, {
      method: 'PUT',
      json: {
        browser_secret: browser.secret,
        endpoint: 'https://fcm.googleapis.com/fcm/send/x',
        keys: { p256dh: `B${'x'.repeat(86)}`, auth: 'y'.repeat(22) },
      },
    });
    expect(put.status).toBe(409);
    expect((await put.json()).code).toBe('PUSH_NOT_CONFIGURED');
    // A send still records its inbox item: an instance with the inbox finds it.
    expect((await harness.send({ recipient: 'u', title: 'Hi' })).status).toBe(201);
    expect(await harness.store.getInboxCounts({ projectId: harness.project.id, recipient: 'u' })).toMatchObject({
      total: 1,
      unread: 1,
    });
  });

  it('plug in through one seam: a feature of the application’s own adds a route, a job kind, jobs to sends, a sweep and an end', async () => {
    const calls: string[] = [];
    const harness = await start({ features: [inbox(), pingFeature(calls)], jobs: { pollMs: 20 } });
    const pong = await harness.tidings.fetch(new Request('http://tidings.test/v1/ping/hello'));
    expect(await pong.text()).toBe('pong hello');
    await harness.connectBrowser('ann');
    const sent = await (await harness.send({ recipient: 'ann', title: 'Hi' })).json();
    await expect.poll(() => calls, { timeout: 5000 }).toContain(`ran ${sent.id}`);
    expect(calls[0]).toBe('send ann');
    // A test send is not live: no feature adds jobs to it.
    await harness.send({ recipient: 'ann', title: 'Test' }, harness.testKey);
    expect(calls.filter((call) => call.startsWith('send'))).toEqual(['send ann']);
    await harness.tidings.sweep();
    expect(calls).toContain('sweep true');
    await harness.tidings.close();
    expect(calls.at(-1)).toBe('closed');
  });

  it('cannot change an answer by failing to hear of it', async () => {
    const failing: Feature = {
      name: 'failing',
      install: () => ({
        answered() {
          throw new Error('not listening');
        },
      }),
    };
    const harness = await start({ features: [failing] });
    await harness.connectBrowser('ann');
    expect((await harness.send({ recipient: 'ann', title: 'Hi' })).status).toBe(201);
  });

  it('run no jobs with jobs: false, so that the jobs wait for an instance that runs them', async () => {
    const calls: string[] = [];
    const harness = await start({ features: [pingFeature(calls)], jobs: false });
    await harness.connectBrowser('ann');
    const sent = await (await harness.send({ recipient: 'ann', title: 'Hi' })).json();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toEqual(['send ann']);
    const [job] = await harness.store.listJobs({ projectId: harness.project.id, kind: 'ping', limit: 10 });
    expect(job).toMatchObject({ key: `ping:${sent.id}`, status: 'pending' });
  });

  it('are refused at construction when given twice, when not a feature, or when two run one job kind', () => {
    const store = {} as Store;
    expect(() => createTidings({ store, features: [inbox(), inbox()] })).toThrow(/names the inbox feature twice/);
    expect(() => createTidings({ store, features: [{ name: 'x' } as unknown as Feature] })).toThrow(
      /what a feature function makes/,
    );
    const twin = (name: string): Feature => ({ name, install: () => ({ jobs: { same: async () => {} } }) });
    expect(() => createTidings({ store, features: [twin('a'), twin('b')] })).toThrow(/job kind same/);
  });

  it('took over options an instance once had, which are refused with where they went', () => {
    const store = {} as Store;
    for (const [option, feature] of [
      ['push', /webPush/],
      ['requestLog', /requestLog\(/],
      ['allowHttpWebhooks', /webhooks\(\{ allowHttp: true \}\)/],
    ] as const) {
      expect(() => createTidings({ store, [option]: {} } as unknown as TidingsOptions), option).toThrow(feature);
    }
  });

  it('check their options when made, before any instance exists', () => {
    expect(() => requestLog({ retentionDays: 0 })).toThrow(/requestLog\.retentionDays must be a positive integer/);
    expect(() => webhooks({ allowHttp: true })).not.toThrow();
  });
});
