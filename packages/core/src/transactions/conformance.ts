import { describe, expect, it } from 'vitest';
import { quietPeriod, until } from '../testing/until.js';
import type { Tidings } from '../tidings.js';
import type { SendInput, SendResult } from './in-process.js';

/** A recipient's browser with its stream open on the harness's instance. */
export interface HarnessBrowser {
  recipient: string;
  /** The titles of the notifications its stream has received so far, in order. */
  titles(): string[];
  /** What reached it by other ways so far (pushes to its closed browser, webhook messages about it), if the harness watches them. */
  elsewhere?(): unknown[];
}

/**
 * What the transactional-send cases need of a store and the application library it joins: an
 * instance on the store, and sends made inside the application's own transactions.
 */
export interface TransactionalSendHarness {
  /** An instance on the store, in the project it names. */
  tidings: Tidings;
  /** A new recipient's browser, its stream open on {@link tidings}. */
  browser(): Promise<HarnessBrowser>;
  /**
   * Writes a row of the application's own and sends `input` in one of its transactions, then
   * commits: resolves with the send's result, or rejects with the send's error, after the
   * application has committed its own row anyway.
   */
  commit(input: SendInput, options?: { idempotencyKey?: string }): Promise<SendResult>;
  /** The ways the application's library ends a transaction without committing it. */
  rollbacks: readonly string[];
  /** Sends `input` in a transaction of the application that then ends the way `how` names, not committed. */
  rollBack(how: string, input: SendInput, options: { idempotencyKey: string }): Promise<void>;
  /** The project's live notifications counted in usage, as the store's tables hold them. */
  usage(projectId: string): Promise<number>;
  /** The records the store's tables hold under an idempotency key. */
  keyRecords(key: string): Promise<number>;
  /**
   * How long a delivery that must not happen is waited for: longer than any delay the instance
   * puts before one (a push to a closed browser waits for its grace period). @default 400
   */
  quietMs?: number;
}

/** How long a delivery that must not happen is waited for, unless the harness says longer. */
const NO_DELIVERY_MS = 400;

/** Waits until `browser`'s stream has received `count` notifications. */
async function delivered(browser: HarnessBrowser, count: number): Promise<void> {
  await until(() => browser.titles().length >= count, {
    what: `${count} notification(s) on the stream`,
    timeoutMs: 10_000,
  });
}

/**
 * Sends through the application's transaction, the same on every store that offers them
 * (`store.capabilities.transactions`): delivered once after the commit and never after a
 * rollback, counted in usage with the commit, the key's result committed with the send and only
 * then, and refusals answered as the route answers them, with the key left free.
 */
export function transactionalSendConformance(getHarness: () => TransactionalSendHarness): void {
  describe('sends through the application’s transaction', () => {
    it('is delivered once after the commit, counted, and its key replays what was committed', async () => {
      const harness = getHarness();
      const project = await harness.tidings.project();
      const target = await harness.browser();
      const before = await harness.usage(project.id);
      const key = `conformance-commit-${target.recipient}`;
      const sent = await harness.commit({ recipient: target.recipient, title: 'Committed' }, { idempotencyKey: key });
      expect(sent.replayed).toBe(false);
      expect(sent.notification).toMatchObject({ object: 'notification', recipient: target.recipient, mode: 'live' });
      expect(sent.notification.attempts.length).toBeGreaterThan(0);
      await delivered(target, 1);
      await quietPeriod(harness.quietMs ?? NO_DELIVERY_MS, 'a second delivery');
      expect(target.titles()).toEqual(['Committed']);
      expect(await harness.usage(project.id)).toBe(before + 1);
      expect(await harness.keyRecords(key)).toBe(1);
      const again = await harness.tidings.notifications.send(
        { recipient: target.recipient, title: 'Committed' },
        { idempotencyKey: key },
      );
      expect(again).toEqual({ notification: sent.notification, replayed: true });
      // The same key in the application's transaction finds the committed result too.
      expect(
        await harness.commit({ recipient: target.recipient, title: 'Committed' }, { idempotencyKey: key }),
      ).toEqual({ notification: sent.notification, replayed: true });
    });

    it('leaves no trace after each way of not committing, and its key stays free', async () => {
      const harness = getHarness();
      expect(harness.rollbacks.length).toBeGreaterThan(0);
      const project = await harness.tidings.project();
      for (const how of harness.rollbacks) {
        const target = await harness.browser();
        const before = await harness.usage(project.id);
        const key = `conformance-rollback-${target.recipient}`;
        await harness.rollBack(how, { recipient: target.recipient, title: 'Never' }, { idempotencyKey: key });
        await quietPeriod(harness.quietMs ?? NO_DELIVERY_MS, `a delivery of a send rolled back by ${how}`);
        expect(target.titles(), how).toEqual([]);
        expect(target.elsewhere?.() ?? [], how).toEqual([]);
        expect(await harness.usage(project.id), how).toBe(before);
        expect(await harness.keyRecords(key), how).toBe(0);
        const later = await harness.commit({ recipient: target.recipient, title: 'Now' }, { idempotencyKey: key });
        expect(later.replayed, how).toBe(false);
        await delivered(target, 1);
        expect(target.titles(), how).toEqual(['Now']);
      }
    });

    it('refuses as the route does, and a refused send leaves its key free though the application commits', async () => {
      const harness = getHarness();
      const nobody = `conformance-nobody-${Date.now()}`;
      const refused = harness.commit({ recipient: nobody, title: 'x' }, { idempotencyKey: `${nobody}-key` });
      await expect(refused).rejects.toMatchObject({ code: 'NO_CONNECTED_BROWSER', status: 409 });
      expect(await harness.keyRecords(`${nobody}-key`)).toBe(0);
      await expect(harness.commit({ recipient: nobody, title: '' })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      const target = await harness.browser();
      const key = `conformance-mismatch-${target.recipient}`;
      await harness.commit({ recipient: target.recipient, title: 'A' }, { idempotencyKey: key });
      await expect(
        harness.commit({ recipient: target.recipient, title: 'B' }, { idempotencyKey: key }),
      ).rejects.toMatchObject({ code: 'IDEMPOTENCY_MISMATCH' });
      await delivered(target, 1);
      await quietPeriod(harness.quietMs ?? NO_DELIVERY_MS, 'a delivery of the mismatched send');
      expect(target.titles()).toEqual(['A']);
    });
  });
}
