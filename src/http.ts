// The HTTP layer: the only code that touches `res`. A request goes
// socket → rate limit → router → query parsing → handler → one reply or one error body.

import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { App } from './app.ts';
import { classifyError, errorBody, HttpError, STATUS_TEXT, tooManyRequests, type Headers } from './errors.ts';
import { createRouter, type Route } from './router.ts';
import { isoTime } from './time.ts';
import { LIMITS, type Query } from './validate.ts';

export interface RequestContext {
  readonly app: App;
  readonly req: IncomingMessage;
  readonly query: Query;
  readonly params: Readonly<Record<string, string>>;
  readonly clientAddress: string;
}

export interface Reply {
  readonly status: number;
  /** JSON text or bytes, or a value to serialise */
  readonly body: string | Buffer | object;
  readonly headers?: Headers;
  /** application/json unless said otherwise */
  readonly contentType?: string;
}

// Public answers may be stored, but are revalidated every time: the owner's listing
// changes show on the next request, and an unchanged answer costs a 304 and no body.
const PUBLIC_CACHE_CONTROL = 'public, no-cache';

/** A 200 with the answer's ETag, or a 304 when the client's If-None-Match already has it. */
export function conditionalReply(req: IncomingMessage, answer: { bytes: Buffer; etag: string }, contentType?: string): Reply {
  const headers = { etag: answer.etag, 'cache-control': PUBLIC_CACHE_CONTROL };
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, answer.etag)) return { status: 304, body: '', headers };
  return { status: 200, body: answer.bytes, headers, contentType };
}

function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/**
 * A handler answers with a Reply, or with the HttpError that refuses the request. It
 * returns its refusals rather than throwing them: under Node every throw costs several
 * microseconds (V8 records a message and a stack trace for it, whoever catches it), the
 * largest single cost of a refused request. Validators called from deep inside a handler
 * still throw; the request handler catches those too.
 */
export type Answer = Reply | HttpError;
export type Handler = (ctx: RequestContext) => Answer | Promise<Answer>;

const JSON_TYPE = 'application/json; charset=utf-8';
const SHARED_HEADERS: readonly string[] = [
  'access-control-allow-origin', '*', // the credential is a header, never a cookie
  'access-control-expose-headers', 'ETag, Retry-After, WWW-Authenticate, X-Request-Id',
  'x-content-type-options', 'nosniff',
];
const PRIVATE_PREFIX = '/api/v1/conversations';
const EXEMPT_FROM_RATE_LIMIT = '/api/v1/health'; // monitors may poll it freely

// Slow or greedy clients cannot hold a connection: these bound every phase of a request.
export const SERVER_TIMEOUTS = Object.freeze({
  headersTimeout: 10_000, // all headers within 10 s
  requestTimeout: 30_000, // the whole request, body included, within 30 s
  keepAliveTimeout: 5_000, // an idle kept-alive connection is closed after 5 s
  connectionsCheckingInterval: 1_000, // how often the two timeouts above are enforced
  shutdownGrace: 5_000, // on shutdown, connections still open after 5 s are closed
});
export type ServerTimeouts = { readonly [K in keyof typeof SERVER_TIMEOUTS]: number };
const MAX_HEADER_BYTES = 16_384;

/** The node:http server, with its limits and the answer to requests Node cannot parse. */
export function createHttpServer(timeouts: ServerTimeouts = SERVER_TIMEOUTS): http.Server {
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval } = timeouts;
  const server = http.createServer({ headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval, maxHeaderSize: MAX_HEADER_BYTES });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerMalformedRequest(err, socket));
  return server;
}

/**
 * Stops accepting and resolves once every connection is closed: idle ones at once, busy
 * ones as soon as their answer is sent, and any left (a client that connected but never
 * sent a request) after the grace period.
 */
export function closeGracefully(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The 'request' listener for a route table. */
export function createRequestHandler(app: App, routes: readonly Route<Handler>[]) {
  const router = createRouter(routes);

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const requestId = randomUUID();
    const clientAddress = clientAddressOf(req, app.config.trustProxy);
    const method = req.method ?? 'GET';
    const { path, rawQuery } = splitTarget(req.url ?? '/');
    const isPrivate = path.startsWith(PRIVATE_PREFIX);
    let routePattern: string | null = null;

    const respond = (status: number, body: string | Buffer, headers?: Headers, contentType = JSON_TYPE) => {
      send(res, status, body, requestId, isPrivate, headers, contentType);
      app.log({
        time: isoTime(Date.now()),
        request_id: requestId,
        method,
        route: routePattern,
        status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        client: clientAddress,
      });
    };

    try {
      if (path !== EXEMPT_FROM_RATE_LIMIT) {
        const wait = app.limits.requests.take(clientAddress, app.now());
        if (wait > 0) return fail(tooManyRequests('Too many requests from your address; slow down and retry after the given seconds.', wait));
      }
      const match = router.match(method, path);
      if (match.kind === 'not-found') {
        // The path is not echoed: a client may have put a credential in it by mistake.
        return fail(new HttpError(404, `There is no ${method} route at this path. The API is described at /api/v1/contact-info.`));
      }
      routePattern = match.pattern;
      if (match.kind === 'method-not-allowed') {
        if (method === 'OPTIONS') return respond(204, '', preflightHeaders(match.allow));
        return fail(new HttpError(405, `${method} is not allowed on ${match.pattern}; use ${match.allow}.`, { allow: match.allow }));
      }
      const query = parseQuery(rawQuery);
      if (query.has('access_token')) {
        return fail(new HttpError(400, 'Never put the credential in a URL: send it only as the header Authorization: Bearer <access_token>.'));
      }
      const answer = match.handler({ app, req, query, params: decodeParams(match.params), clientAddress });
      // Most handlers answer at once; only those that read a body or write return a promise.
      if (answer instanceof Promise) answer.then(settle, fail);
      else settle(answer);
    } catch (err) {
      fail(err);
    }

    function settle(answer: Answer): void {
      if (answer instanceof HttpError) return fail(answer);
      const reply = answer;
      const body = typeof reply.body === 'string' || Buffer.isBuffer(reply.body) ? reply.body : JSON.stringify(reply.body);
      respond(reply.status, body, reply.headers, reply.contentType);
    }

    function fail(err: unknown): void {
      if (err instanceof ClientGoneError) {
        // Nothing was stored, and nobody is there to answer: only the log hears of it.
        app.log({ time: isoTime(Date.now()), request_id: requestId, method, route: routePattern, status: null, aborted: true, client: clientAddress });
        return;
      }
      const { refusal, expected } = classifyError(err);
      if (!expected) app.log({ time: isoTime(Date.now()), request_id: requestId, level: 'error', error: describe(err) });
      if (res.headersSent || res.destroyed || !req.socket.writable) return;
      respond(refusal.status, refusal.body, refusal.headers);
    }
  }

  return handle;
}

/**
 * Writes the whole answer with one writeHead: the shared headers, then the reply's own.
 * The body goes out as bytes: Node writes a string body by joining it to the head and
 * encoding both at write time, which measured slower than handing it bytes.
 */
function send(
  res: ServerResponse, status: number, body: string | Buffer, requestId: string, isPrivate: boolean, headers: Headers | undefined, contentType: string,
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const head = [...SHARED_HEADERS, 'x-request-id', requestId];
  if (isPrivate) head.push('cache-control', 'no-store');
  if (bytes.length > 0) head.push('content-type', contentType, 'content-length', String(bytes.length));
  if (headers) for (const name in headers) head.push(name, headers[name] as string);
  res.writeHead(status, head);
  res.end(bytes);
}

function preflightHeaders(allow: string): Headers {
  return {
    allow,
    'access-control-allow-methods': allow,
    'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
    'access-control-max-age': '86400',
  };
}

const BODY_TOO_LARGE = new HttpError(413, `The body must be at most ${LIMITS.bodyBytes} bytes (16 KiB) of JSON.`, {
  connection: 'close', // the rest of an oversized body is not read
});
const UTF8 = new TextDecoder('utf-8', { fatal: true }); // fatal: invalid UTF-8 is refused, not replaced

/** Parses and reads a JSON body under the 16 KiB limit: 415, then 413, then 400. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new HttpError(415, 'Send the body as JSON with the header Content-Type: application/json.');
  }
  const declared = Number(req.headers['content-length']);
  if (declared > LIMITS.bodyBytes) throw BODY_TOO_LARGE;
  const bytes = await readBody(req, LIMITS.bodyBytes, BODY_TOO_LARGE);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new HttpError(400, 'The body must be UTF-8 encoded JSON.');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `The body is not valid JSON (${(err as Error).message}).`);
  }
}

/** The client closed the connection before its body was complete. */
class ClientGoneError extends Error {}

function readBody(req: IncomingMessage, limit: number, tooLarge: HttpError): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        reject(tooLarge);
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    // Node reports a vanished client as 'error' (aborted) and then 'close'.
    req.on('error', () => reject(new ClientGoneError()));
    req.on('close', () => {
      if (!req.complete) reject(new ClientGoneError());
    });
  });
}

/** Splits a request target into its raw path and raw query (an absolute-form target too). */
function splitTarget(target: string): { path: string; rawQuery: string } {
  const relative = target.startsWith('/') ? target : target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  const hash = relative.indexOf('#');
  const withoutHash = hash === -1 ? relative : relative.slice(0, hash);
  const mark = withoutHash.indexOf('?');
  if (mark === -1) return { path: withoutHash, rawQuery: '' };
  return { path: withoutHash.slice(0, mark), rawQuery: withoutHash.slice(mark + 1) };
}

/** A strict query parser: malformed percent-encoding or a repeated parameter → 400. */
function parseQuery(raw: string): Map<string, string> {
  const query = new Map<string, string>();
  if (raw === '') return query;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeQueryPart(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeQueryPart(eq === -1 ? '' : pair.slice(eq + 1));
    if (query.has(name)) throw new HttpError(400, `The query parameter \`${name.slice(0, 60)}\` is repeated; send it once.`);
    query.set(name, value);
  }
  return query;
}

function decodeQueryPart(part: string): string {
  if (!part.includes('%') && !part.includes('+')) return part; // nothing to decode: the usual case
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new HttpError(400, 'The query string has malformed percent-encoding (a % must be followed by two hex digits).');
  }
}

/** Decodes the router's fresh params object in place. */
function decodeParams(params: Record<string, string>): Record<string, string> {
  for (const name in params) {
    const value = params[name] as string;
    if (!value.includes('%')) continue;
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      throw new HttpError(400, 'The path has malformed percent-encoding (a % must be followed by two hex digits).');
    }
  }
  return params;
}

function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').at(-1)?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/** Node's parser refused the request (bad request line, headers too large, timeout). */
function answerMalformedRequest(err: NodeJS.ErrnoException, socket: Socket): void {
  const responseStarted = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || responseStarted) {
    socket.destroy();
    return;
  }
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers are too large; keep them under 16 KiB.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive; send it again.']
        : [400, 'The request is not valid HTTP/1.1.'];
  const body = errorBody(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: ${JSON_TYPE}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\naccess-control-allow-origin: *\r\nconnection: close\r\n\r\n${body}`,
  );
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
