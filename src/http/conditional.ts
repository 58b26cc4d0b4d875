// Conditional answers: a public answer carries its ETag, and a client that already holds it
// gets 304 without the body.

import type { IncomingMessage } from 'node:http';
import type { Reply } from './context.ts';

// Public answers may be stored, but are revalidated every time: the owner's listing
// changes show on the next request, and an unchanged answer costs a 304 and no body.
const PUBLIC_CACHE_CONTROL = 'public, no-cache';

/** A 200 with the answer's ETag, or a 304 when the client's If-None-Match already has it. */
export function conditionalReply(
  req: IncomingMessage,
  answer: { bytes: Buffer; etag: string },
  contentType?: string,
): Reply {
  const headers = { etag: answer.etag, 'cache-control': PUBLIC_CACHE_CONTROL };
  if (clientHas(req, answer.etag)) return { status: 304, body: '', headers };
  return { status: 200, body: answer.bytes, headers, contentType };
}

/** Whether the request's If-None-Match names `etag` (weakly compared), or is `*`. */
export function clientHas(req: IncomingMessage, etag: string): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
