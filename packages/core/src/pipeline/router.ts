import type { CorsKind } from './http/cors.js';
import type { RouteDeclaration, RouteHandler, RouteMethod } from './route.js';

export type { RouteMethod } from './route.js';

/** One path of the API as the edge matches it: made from its {@link RouteDeclaration}. */
export interface Route {
  /** The route's pattern as people write it, e.g. `/v1/notifications/{id}`: the metrics' label. */
  path: string;
  pattern: RegExp;
  params: readonly string[];
  methods: Partial<Record<RouteMethod, RouteHandler>>;
  cors: CorsKind;
}

/** A declared route, ready to match: `{name}` matches one path segment, the rest matches itself. */
export function compileRoute(declaration: RouteDeclaration): Route {
  const params: string[] = [];
  const source = declaration.path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part);
      if (!param) return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      params.push(param[1]!);
      return '([^/]+)';
    })
    .join('');
  const methods: Partial<Record<RouteMethod, RouteHandler>> = {};
  for (const [method, declared] of Object.entries(declaration.methods)) {
    methods[method as RouteMethod] = declared.handler as RouteHandler;
  }
  return { path: declaration.path, pattern: new RegExp(`^${source}$`), params, methods, cors: declaration.cors };
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
