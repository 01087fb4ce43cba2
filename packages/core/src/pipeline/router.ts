import type { RouteHandler } from './context.js';
import type { CorsKind } from './http/cors.js';

/** The methods a route may answer (OPTIONS is answered for every route by the edge). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One path of the API, the handler of each method, and its CORS answer. */
export interface Route {
  /** The route's pattern as people write it, e.g. `/v1/notifications/{id}`: the metrics' label. */
  path: string;
  pattern: RegExp;
  params: readonly string[];
  methods: Partial<Record<RouteMethod, RouteHandler>>;
  cors: CorsKind;
}

/** The route a path matches, with its parameters. */
export function matchRoute(
  routes: readonly Route[],
  pathname: string,
): { route: Route; params: Record<string, string> } | null {
  for (const route of routes) {
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    const params: Record<string, string> = {};
    route.params.forEach((name, index) => {
      params[name] = safeDecode(match[index + 1] ?? '');
    });
    return { route, params };
  }
  return null;
}

/** Decodes a path segment; a malformed escape (`%zz`) stays as sent and simply matches nothing. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The path of a `Request`'s URL, which is always absolute and serialized (normalized), taken
 * without parsing the whole URL: a request that only needs routing never builds a URL object.
 */
export function pathOf(href: string): string {
  const scheme = href.startsWith('https://') ? 8 : href.startsWith('http://') ? 7 : -1;
  if (scheme === -1) return new URL(href).pathname;
  const start = href.indexOf('/', scheme);
  if (start === -1) return '/';
  let end = href.length;
  for (let i = start; i < href.length; i++) {
    const char = href.charCodeAt(i);
    if (char === 63 /* ? */ || char === 35 /* # */) {
      end = i;
      break;
    }
  }
  return href.slice(start, end);
}
