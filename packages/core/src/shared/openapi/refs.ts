import type { OpenApiParameter, OpenApiReference } from './types.js';

/** Where a component schema is referenced from. */
export function schemaRef(name: string): { $ref: string } {
  return { $ref: `#/components/schemas/${name}` };
}

/** A reference to a component parameter. */
export const param = (name: string): OpenApiReference => ({ $ref: `#/components/parameters/${name}` });

/** The security of an operation that takes an API key. */
export const apiKey = [{ apiKey: [] }];

/** The security of an operation that takes no API key (a token, a browser secret, or nothing). */
export const noAuth: Record<string, string[]>[] = [];

/** A path parameter that is an id of some kind. */
export function idParameter(description: string): OpenApiParameter {
  return { name: 'id', in: 'path', required: true, description, schema: { type: 'string' } };
}

/** A body that may come as JSON or, so that a page can post it without a preflight, as text/plain JSON. */
export function jsonOrText(schemaName: string) {
  return {
    'application/json': { schema: schemaRef(schemaName) },
    'text/plain': { schema: { type: 'string', description: `The ${schemaName} object as JSON text.` } },
  };
}
