import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

export const runtime = 'nodejs';

// The browser SDK's script-tag build, served from the installed @tidings/browser.
export async function GET() {
  const file = createRequire(import.meta.url).resolve('@tidings/browser/tidings.global.js');
  return new Response(await readFile(file), { headers: { 'Content-Type': 'text/javascript' } });
}
