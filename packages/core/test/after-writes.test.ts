import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHub, type HubMessage } from '../src/index.js';
import { STORE_DUTIES } from '../src/store.js';
import { createHarness, type Harness } from './harness.js';

/**
 * What the core hands to the hub after each write is what the duty table says (`publishes` of
 * STORE_DUTIES): the table is where the path after a write is read, so it must be the path.
 */
let h: Harness;
let published: HubMessage['type'][];
afterEach(async () => {
  await h.close();
});

async function start() {
  const memory = createMemoryHub();
  published = [];
  // What is handed to the hub, whoever follows it.
  const hub = {
    ...memory,
    publish(messages: readonly HubMessage[]) {
      published.push(...messages.map((message) => message.type));
      return memory.publish(messages);
    },
  };
  h = await createHarness({ extra: { hub, staleBrowserMs: 60_000 } });
}

/** The hub's messages while `write` runs, each type once. */
async function publishedBy(write: () => Promise<unknown>): Promise<HubMessage['type'][]> {
  published = [];
  await write();
  // A send and an inbox change publish without waiting: their messages follow in a turn.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return [...new Set(published)];
}

describe('the hub messages after each write', () => {
  it('are those STORE_DUTIES names', async () => {
    await start();
    const browser = await h.connectBrowser('ann');
    expect(await publishedBy(() => h.send({ recipient: 'ann', title: 'Hi' }))).toEqual(
      STORE_DUTIES.createNotification.publishes,
    );
    const mark = () =>
      h.request('/v1/recipients/ann/inbox/mark', {
        method: 'POST',
        key: h.liveKey,
        json: { action: 'read', all: true },
      });
    expect(await publishedBy(mark)).toEqual(STORE_DUTIES.markInbox.publishes);
    const disconnect = () =>
      h.request(`/v1/browsers/${browser.browserId}/disconnect`, {
        method: 'POST',
        json: { browser_secret: browser.secret },
      });
    expect(await publishedBy(disconnect)).toEqual(STORE_DUTIES.disconnectBrowser.publishes);

    await h.connectBrowser('bob');
    h.clock.advance(61_000);
    expect(await publishedBy(() => h.tidings.sweep())).toEqual(STORE_DUTIES.reapStaleBrowsers.publishes);

    const suspend = () => h.tidings.admin.suspendProject(h.project.id);
    expect(await publishedBy(suspend)).toEqual(STORE_DUTIES.setProjectSuspended.publishes);
    // Resuming opens nothing again: nothing to close.
    expect(await publishedBy(() => h.tidings.admin.resumeProject(h.project.id))).toEqual([]);
    expect(await publishedBy(() => h.tidings.admin.deleteProject(h.project.id))).toEqual(
      STORE_DUTIES.deleteProject.publishes,
    );
  });
});
