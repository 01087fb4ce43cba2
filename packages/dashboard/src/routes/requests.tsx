/** @jsxImportSource hono/jsx */
import { type ListRequestsOptions, MAX_REQUEST_SEARCH_LENGTH, TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { render } from '../render.js';
import { type RequestFilters, RequestPage, RequestsPage } from '../views/request-pages.js';

const PAGE_SIZE = 25;
const REQUEST_ID = /^req_[0-9a-z]{26}$/;

/** The filters as the query names them; a value that is none of the choices is no filter. */
function filtersOf(query: (name: string) => string | undefined): RequestFilters {
  const status = query('status') ?? '';
  const mode = query('mode') ?? '';
  return {
    status: status === '2xx' || status === '4xx' || status === '5xx' ? status : '',
    mode: mode === 'live' || mode === 'test' ? mode : '',
    q: (query('q') ?? '').trim(),
  };
}

/** A project's request log (docs/dashboard.md#requests): the list, searched, and one request. */
export function registerRequestRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { tidings } = deps;
  const { retentionDays } = tidings.admin.settings.requestLog;

  app.get('/projects/:id/requests', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const filters = filtersOf((name) => c.req.query(name));
    const after = c.req.query('after') ?? '';
    const page = { project, filters, retentionDays, requests: [], nextCursor: null };
    if (filters.q.length > MAX_REQUEST_SEARCH_LENGTH) {
      const error = `The search is at most ${MAX_REQUEST_SEARCH_LENGTH} characters: an id, an Idempotency-Key or a recipient.`;
      return render(c, <RequestsPage {...page} error={error} />, 400);
    }
    const options: ListRequestsOptions = {
      limit: PAGE_SIZE,
      ...(REQUEST_ID.test(after) ? { startingAfter: after } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.mode ? { mode: filters.mode } : {}),
      ...(filters.q ? { search: filters.q } : {}),
    };
    const found = await tidings.admin.listRequests(project.id, options);
    const nextCursor = found.hasMore ? (found.requests.at(-1)?.id ?? null) : null;
    return render(c, <RequestsPage {...page} requests={found.requests} nextCursor={nextCursor} />);
  });

  app.get('/projects/:id/requests/:requestId', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const request = await tidings.admin.getRequest(project.id, c.req.param('requestId')).catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!request) throw new TidingsError('NOT_FOUND', 'No such request in this project, or it is past its retention');
    return render(c, <RequestPage project={project} request={request} />);
  });
}
