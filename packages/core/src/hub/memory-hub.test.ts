import { describe, expect, it } from 'vitest';
import type { HubMessage } from '../ports/hub.js';
import { runHubConformance } from '../testing/hub-conformance.js';
import { createMemoryHub } from './memory-hub.js';

// In one process both "instances" are the same hub.
runHubConformance('memory', async () => {
  const hub = createMemoryHub();
  return { hubs: [hub, hub] };
});

describe('createMemoryHub', () => {
  it('reaches its subscribers before publish returns: a send answers without waiting for it', async () => {
    const hub = createMemoryHub();
    const received: HubMessage[] = [];
    hub.subscribe((message) => received.push(message));
    const message: HubMessage = { type: 'close-browser', browserId: 'brw_1' };
    const publishing = hub.publish([message]);
    expect(received).toEqual([message]);
    await publishing;
    await hub.close();
  });
});
