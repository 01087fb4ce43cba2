import type { Registry } from 'prom-client';

/**
 * A Web-standard handler that answers `GET /metrics` (and HEAD) with the registry in the
 * Prometheus text format, 405 to other methods on that path and 404 elsewhere: mount it on a
 * listener of its own, or route `/metrics` of your app to it.
 */
export function createMetricsHandler(registry: Registry): (request: Request) => Promise<Response> {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname !== '/metrics') return new Response('Not found\n', { status: 404 });
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response('Method not allowed\n', { status: 405, headers: { Allow: 'GET, HEAD' } });
    }
    const body = await registry.metrics();
    return new Response(request.method === 'HEAD' ? null : body, {
      headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' },
    });
  };
}
