import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** A rendered JSX page (hono/jsx elements render to a string or a promise of one). */
export interface Renderable {
  toString(): string | Promise<string>;
}

/** Answers a full HTML page with `status`. */
export async function render(c: Context, page: Renderable, status: ContentfulStatusCode = 200): Promise<Response> {
  return c.html(`<!doctype html>${await page.toString()}`, status);
}

/** Post/redirect/get: a 303 to a page of the dashboard. */
export function seeOther(c: Context, location: string): Response {
  return c.redirect(location, 303);
}
