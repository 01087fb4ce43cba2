import type { OpenApiOperation } from '../shared/openapi/types.js';
import type { RouteContext, Services } from './context.js';
import type { CorsKind } from './http/cors.js';

/** The methods a route may answer (OPTIONS is answered for every route by the edge). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The names of a path's parameters: `'/v1/browsers/{id}/inbox'` → `'id'`. */
export type ParamsOf<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamsOf<Rest>
  : never;

/** A route handler, with the parameters of its path. Refusals are thrown as TidingsError and rendered at the edge. */
export type RouteHandler<Params extends string = string> = (
  ctx: RouteContext & { params: Readonly<Record<Params, string>> },
  services: Services,
) => Promise<Response>;

/** One method of a route: what answers it, and how the OpenAPI document describes it. */
export interface RouteMethodDeclaration<Params extends string = string> {
  handler: RouteHandler<Params>;
  operation: OpenApiOperation;
}

/**
 * One path of the API, declared once: its pattern as people write it (`/v1/notifications/{id}`),
 * each method's handler and OpenAPI operation, and its CORS answer. The matching (a pattern and the
 * parameters' names) and the document's paths are both made from it.
 */
export interface RouteDeclaration<Path extends string = string> {
  path: Path;
  cors: CorsKind;
  methods: Partial<Record<RouteMethod, RouteMethodDeclaration<ParamsOf<Path>>>>;
}

/** Declares a route, typing each handler's parameters by the path. */
export function declareRoute<const Path extends string>(declaration: RouteDeclaration<Path>): RouteDeclaration {
  return declaration as unknown as RouteDeclaration;
}

/** The OpenAPI paths of some routes, in their order: each path's operations by method. */
export function openApiPaths(
  routes: readonly RouteDeclaration[],
): Record<string, Partial<Record<Lowercase<RouteMethod>, OpenApiOperation>>> {
  const paths: Record<string, Partial<Record<Lowercase<RouteMethod>, OpenApiOperation>>> = {};
  for (const route of routes) {
    const operations: Partial<Record<Lowercase<RouteMethod>, OpenApiOperation>> = {};
    for (const [method, declared] of Object.entries(route.methods)) {
      operations[method.toLowerCase() as Lowercase<RouteMethod>] = declared.operation;
    }
    paths[route.path] = operations;
  }
  return paths;
}
