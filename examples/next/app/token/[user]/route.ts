import { getTidings } from '../../../lib/tidings';

export const runtime = 'nodejs';

// The signed-in user's connect token (the app's own session check decides who that is).
export async function POST(request: Request, { params }: { params: Promise<{ user: string }> }) {
  const { user } = await params;
  // The origin the page asked for: Next.js writes its own host name into request.url.
  const baseUrl = `${request.headers.get('x-forwarded-proto') ?? 'http'}://${request.headers.get('host')}/notify`;
  const minted = await getTidings().createConnectToken({ recipient: user, baseUrl });
  return Response.json(minted, { headers: { 'Cache-Control': 'no-store' } });
}
