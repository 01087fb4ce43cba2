import { getTidings } from '../../../lib/tidings';

export const runtime = 'nodejs';

// A send in process: the route is the app's own code, no API key involved.
export async function POST(_request: Request, { params }: { params: Promise<{ user: string }> }) {
  const { user } = await params;
  const { notification } = await getTidings().notifications.send({ recipient: user, title: 'Hello' });
  return Response.json({ id: notification.id }, { status: 201 });
}
