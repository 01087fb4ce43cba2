/** Options of {@link until}. */
export interface UntilOptions<T> {
  /** Whether a value of `check` is the one waited for. @default truthiness */
  accept?: (value: T) => boolean;
  /** What is waited for, as the failure says it. @default 'the condition' */
  what?: string;
  /** @default 5000 */
  timeoutMs?: number;
}

/**
 * Polls `check` until its value is accepted and resolves with that value, or rejects after
 * `timeoutMs` with what it waited for and the last value. The interval grows from 5 ms to 100 ms,
 * so a test waits for a condition rather than a fixed time and holds on a loaded machine.
 */
export async function until<T>(check: () => T | Promise<T>, options: UntilOptions<T> = {}): Promise<T> {
  const { accept = Boolean, what = 'the condition', timeoutMs = 5_000 } = options;
  const deadline = Date.now() + timeoutMs;
  let wait = 5;
  for (;;) {
    const value = await check();
    if (accept(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${describe(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 100);
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Waits `ms` before a check that something did NOT happen (no late duplicate, no error line, no
 * write past a bound). Such a wait can only let a failure go unseen on a slow machine, never
 * fail a test that should pass, so it is the one place a fixed wait is right; a check that
 * something DID happen polls with {@link until} instead. `what` says what the quiet is for.
 */
export function quietPeriod(ms: number, what: string): Promise<void> {
  if (!what) throw new TypeError('quietPeriod: say what the quiet is for');
  return new Promise((resolve) => setTimeout(resolve, ms));
}
