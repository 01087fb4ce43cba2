import { tidingsNext } from '@tidings/next';
import { getTidings } from '../../../lib/tidings';

// Tidings answers /notify/v1/*: connect (the event stream), events, disconnect, and the API.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = tidingsNext(getTidings, { basePath: '/notify' });
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
