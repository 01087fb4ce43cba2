/**
 * The states of a connection's loop. The loop tries (opens a stream, polls, asks for a token)
 * only in `Trying`; in every other state it waits, and what ends the wait is an input below.
 * (A `const enum`: the build writes the numbers in place of the names.)
 */
export enum Phase {
  /** A try under way: a token asked for, a stream open or opening, a poll. */
  Trying,
  /** Waiting out a backoff or the poll interval, which a wake (tab shown, network back) cuts short. */
  Waiting,
  /** Waiting out the server's `Retry-After`, which a wake does not cut short. */
  Holding,
  /** Another tab of this browser holds the connection; this one is fed by it. */
  Following,
  /** The page is in the back/forward cache; it leads when it comes back. */
  Hidden,
  /** The page is in the back/forward cache; it follows when it comes back. */
  HiddenFollowing,
  /** Closed for good: `close()`, `disconnect()`, or a failure that cannot be retried. */
  Closed,
}

/** What happens to a connection, from its own loop, the page, the other tabs or the app. */
export enum Input {
  /** A try ended with a wait the loop may cut short. */
  Wait,
  /** A try ended with the server's `Retry-After`. */
  Hold,
  /** A wait ran out. */
  Elapse,
  /** The tab became visible or the network came back. */
  Wake,
  /** `pagehide`: the page went away, maybe into the back/forward cache. */
  Hide,
  /** `pageshow` of a page back from the back/forward cache. */
  Show,
  /** This tab was elected to hold the connection. */
  Lead,
  /** Another tab holds the connection now. */
  Follow,
  Close,
}

/**
 * The next state, as a digit (the state's number in {@link Phase}), per state (rows, in the
 * order of {@link Phase}) and input (columns, in the order of {@link Input}).
 */
const table =
  // Wait Hold Elapse Wake Hide Show Lead Follow Close
  '120040036' + // Trying
  '120041136' + // Waiting
  '220242236' + // Holding
  '333353036' + // Following
  '444440456' + // Hidden
  '555553456' + // HiddenFollowing
  '666666666'; // Closed

/** The one transition function of a connection: where `input` takes it from `phase`. */
export function transition(phase: Phase, input: Input): Phase {
  return +table[phase * 9 + input]!;
}
