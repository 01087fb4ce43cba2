import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** A rendered JSX page (hono/jsx elements render to a string or a promise of one). */
export type Renderable = string | Promise<string>;

/**
 * Answers a full HTML page with `status`, through the app's one renderer: it adds the doctype and
 * hands the page its context (where the dashboard lives, who is signed in).
 */
export function render(c: Context, page: unknown, status: ContentfulStatusCode = 200): Response | Promise<Response> {
  c.status(status);
  return c.render(page as Renderable);
}

/** Post/redirect/get: a 303 to a page of the dashboard. */
export function seeOther(c: Context, location: string): Response {
  return c.redirect(location, 303);
}
