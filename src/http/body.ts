// Reading a JSON body under a hard limit: the content type first (415), then the declared
// length (413), then the bytes as they arrive (413), then UTF-8 and JSON (400). With
// `Expect: 100-continue` the client is told to send its body only once those first checks pass.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { refuse, Refusal } from '../refusals/refusal.ts';

const UTF8 = new TextDecoder('utf-8', { fatal: true }); // fatal: invalid UTF-8 is refused, not replaced

/** The client closed the connection before its body was complete: nobody is left to answer. */
export class ClientGoneError extends Error {}

/** What a door accepts: its JSON media types, and what an empty body means (by default: malformed). */
export interface BodyOptions {
  readonly mediaTypes?: readonly string[];
  readonly empty?: unknown;
}

/** Parses the request's JSON body of at most `maxBytes`. */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  options: BodyOptions = {},
): Promise<unknown> {
  // A request without a body (no length, nor chunks) is what `empty` says, whatever its type.
  const { 'content-length': length, 'transfer-encoding': chunked } = req.headers;
  if (options.empty !== undefined && (length === '0' || (length === undefined && chunked === undefined))) {
    return options.empty;
  }
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (!(options.mediaTypes ?? ['application/json']).includes(mediaType ?? '')) throw refuse('not_json_content');
  if (Number(req.headers['content-length']) > maxBytes) throw refuse('body_too_large', maxBytes);
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  const bytes = await readBytes(req, maxBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw refuse('not_utf8');
  }
  if (text === '' && options.empty !== undefined) return options.empty;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw refuse('not_json', (err as Error).message);
  }
}

async function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // Not destroyed when left early: the rest of a body too large is not read, and the answer closes the connection.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw refuse('body_too_large', maxBytes);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw new ClientGoneError(); // Node reports a vanished client as an error (aborted, or closed early)
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}
