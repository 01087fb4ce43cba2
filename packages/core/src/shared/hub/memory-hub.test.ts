import { describe, expect, it } from 'vitest';
import type { HubMessage } from '../../ports/hub.js';
import { runHubConformance } from '../../testing/hub-conformance.js';
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
    await hub.follow?.('brw_1');
    const message: HubMessage = { type: 'close-browser', browserId: 'brw_1' };
    const publishing = hub.publish([message]);
    expect(received).toEqual([message]);
    await publishing;
    await hub.close();
  });

  it('passes on the messages of the browsers it follows, until the last follow ends, and every project message', async () => {
    const hub = createMemoryHub();
    const received: HubMessage[] = [];
    hub.subscribe((message) => received.push(message));
    const close = (browserId: string): HubMessage => ({ type: 'close-browser', browserId });
    const project: HubMessage = { type: 'close-project', projectId: 'proj_1' };
    await hub.follow?.('brw_1');
    await hub.follow?.('brw_1');
    await hub.publish([close('brw_1'), close('brw_2'), project]);
    hub.unfollow?.('brw_1');
    await hub.publish([close('brw_1')]);
    hub.unfollow?.('brw_1');
    await hub.publish([close('brw_1'), project]);
    expect(received).toEqual([close('brw_1'), project, close('brw_1'), project]);
  });
});
