import { TidingsError } from '../errors.js';

/** Which media types a route accepts for its JSON body. */
export type BodyMediaTypes = 'json' | 'json-or-text';

/** The media type of a request, lowercase, without parameters. */
export function mediaTypeOf(request: Request): string {
  const header = request.headers.get('content-type');
  // What nearly every client sends, answered without splitting it.
  if (header === 'application/json') return header;
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Only whitespace (or nothing): tested without copying the body as trim() would. */
const BLANK = /^\s*$/;

function acceptsMediaType(mediaType: string, accepted: BodyMediaTypes): boolean {
  if (mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) return true;
  return accepted === 'json-or-text' && mediaType === 'text/plain';
}

/**
 * Reads a request body of at most `maxBytes` (413, see {@link readBodyText}) and parses it as
 * JSON. An optional body may be empty (`undefined`); a required one must come with a JSON media
 * type (415) and be present (400).
 */
export async function readJsonBody(
  request: Request,
  options: { maxBytes: number; accepted: BodyMediaTypes; required: boolean },
): Promise<unknown> {
  const mediaTypeOk = acceptsMediaType(mediaTypeOf(request), options.accepted);
  if (options.required && !mediaTypeOk) throw unsupportedMediaType(options.accepted);
  const text = await readBodyText(request, options.maxBytes);
  if (BLANK.test(text)) {
    if (!options.required) return undefined;
    throw new TidingsError('VALIDATION_FAILED', 'A JSON body is required', {
      errors: [{ path: '', message: 'required' }],
    });
  }
  if (!mediaTypeOk) throw unsupportedMediaType(options.accepted);
  try {
    return JSON.parse(text);
  } catch {
    throw new TidingsError('VALIDATION_FAILED', 'The body is not valid JSON', {
      errors: [{ path: '', message: 'invalid JSON' }],
    });
  }
}

function unsupportedMediaType(accepted: BodyMediaTypes): TidingsError {
  return new TidingsError(
    'UNSUPPORTED_MEDIA_TYPE',
    accepted === 'json' ? 'Send the body as application/json' : 'Send the body as application/json or text/plain',
  );
}

function tooLarge(maxBytes: number): TidingsError {
  return new TidingsError('PAYLOAD_TOO_LARGE', `The body must be at most ${maxBytes} bytes`);
}

/** The text of each request body read, for the request log: a body can be read only once. */
const bodyTexts = new WeakMap<Request, string>();

/** The body of `request` as {@link readBodyText} read it, or null when it was not read (or was refused). */
export function bodyTextOf(request: Request): string | null {
  return bodyTexts.get(request) ?? null;
}

/** Fatal: a body that is not UTF-8 is refused, not patched with replacement characters. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a body as UTF-8 text, refusing more than `maxBytes` (413): a declared Content-Length
 * over the limit is refused unread, and the bytes actually read are counted either way.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  // With a declared length the HTTP layer ends the body there, so reading it whole reads at most
  // maxBytes, and hosts answer arrayBuffer() without building a stream (@hono/node-server reads
  // the Node request directly). The size is still checked, not assumed.
  let bytes: Uint8Array;
  try {
    bytes = Number.isFinite(declared)
      ? new Uint8Array(await request.arrayBuffer())
      : await readCountingBytes(request, maxBytes);
  } catch (error) {
    if (error instanceof TidingsError) throw error;
    // The body stream broke: the client went away (or its connection did) mid-upload. That is
    // no fault of the server, so it is answered, to nobody, as a bad request, not logged as one.
    throw new TidingsError('VALIDATION_FAILED', 'The body ended before its end: the connection was closed', {
      errors: [{ path: '', message: 'incomplete body' }],
    });
  }
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  try {
    const text = utf8.decode(bytes);
    bodyTexts.set(request, text);
    return text;
  } catch {
    throw new TidingsError('VALIDATION_FAILED', 'The body is not valid UTF-8', {
      errors: [{ path: '', message: 'invalid UTF-8' }],
    });
  }
}

/** Reads a body of undeclared length chunk by chunk, cancelling it past `maxBytes` (413). */
async function readCountingBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
