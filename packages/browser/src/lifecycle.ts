import type { TidingsHost } from './options.js';

/** What the page's life means for a connection. */
export interface LifecycleHandlers {
  /** The tab became visible or the network came back: check the stream, end a backoff wait. */
  wake(): void;
  /** The tab was hidden: send pending receipts now, a hidden tab may be killed without notice. */
  hidden(): void;
  /** The page is leaving or entering the back/forward cache: stop the stream until `resume`. */
  pause(): void;
  /** The page came back from the back/forward cache. */
  resume(): void;
}

/** Listens to the page's lifecycle events; returns the function that stops listening. */
export function watchLifecycle(host: TidingsHost | null, handlers: LifecycleHandlers): () => void {
  const document = host?.document;
  const listeners: [
    Pick<TidingsHost, 'addEventListener' | 'removeEventListener'> | null | undefined,
    string,
    (event: Event) => void,
  ][] = [
    [
      document,
      'visibilitychange',
      () => (document?.visibilityState === 'visible' ? handlers.wake() : handlers.hidden()),
    ],
    [host, 'online', handlers.wake],
    [host, 'pagehide', handlers.pause],
    [host, 'pageshow', (event) => (event as PageTransitionEvent).persisted && handlers.resume()],
  ];
  for (const [target, type, listener] of listeners) target?.addEventListener(type, listener);
  return () => {
    for (const [target, type, listener] of listeners) target?.removeEventListener(type, listener);
  };
}
