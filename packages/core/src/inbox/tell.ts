import type { ResolvedOptionsWith } from '../options.js';
import type { Hub, HubMessage } from '../ports/hub.js';
import type { InboxAction, InboxStore, InboxTarget } from '../ports/store.js';
import { publishWithoutWaiting } from '../shared/hub/publish-without-waiting.js';
import { type InboxUpdateObject, inboxUpdateObject } from './objects.js';

/** What a mark uses of the instance. */
export interface InboxServices {
  options: Pick<ResolvedOptionsWith<InboxStore>, 'store' | 'logger'>;
  hub: Hub;
}

/**
 * Applies a mark to a recipient's inbox and, when it changed anything, hands the update to the
 * hub for every connected browser of the recipient, without waiting: the answer depends on the
 * commit alone. A browser that misses the update (a hub that lost it) reads the inbox again when
 * it reconnects.
 */
export async function markAndTell(
  services: InboxServices,
  input: { projectId: string; recipient: string; action: InboxAction; target: InboxTarget; now: number },
  requestId: string | null,
): Promise<InboxUpdateObject> {
  const result = await services.options.store.markInbox(input);
  const update = inboxUpdateObject({ action: input.action, all: 'all' in input.target, now: input.now, ...result });
  if (result.anyChanged && result.browserIds.length > 0) {
    const json = JSON.stringify(update);
    publishWithoutWaiting(
      services.hub,
      services.options.logger,
      result.browserIds.map((browserId): HubMessage => ({ type: 'inbox', browserId, update: json })),
      'hub publish failed after an inbox change was recorded',
      requestId,
    );
  }
  return update;
}
