// The HTTP layer, the only code that touches `res`. A request goes socket → router → the
// route's guards and handler (routes.ts) → one reply, or one refusal as the error body.

import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { App } from './app.ts';
import { ClientGoneError, readJsonBody } from './body.ts';
import { limited } from './guards.ts';
import { asRefusal, errorBody, refuse, type Headers, type Refusal } from './refusals.ts';
import { createRouter, type Route } from './router.ts';

/** What a handler gets: the request as parsed so far, and the app it runs in. */
export interface RestContext {
  readonly app: App;
  readonly req: IncomingMessage;
  readonly rawQuery: string;
  readonly params: Readonly<Record<string, string>>;
  readonly clientAddress: string;
  readonly requestId: string;
  /** The JSON body, read under `maxBytes`: 415, then 413, then 400. */
  readJson(maxBytes: number): Promise<unknown>;
}

export interface Reply {
  readonly status: number;
  /** text or bytes as they are, or a value to send as JSON */
  readonly body: string | Buffer | object;
  readonly headers?: Headers;
  /** application/json unless said otherwise */
  readonly contentType?: string;
}

/** A handler answers with a reply or throws the refusal. */
export type Handler = (ctx: RestContext) => Reply | Promise<Reply>;

const JSON_TYPE = 'application/json; charset=utf-8';
const ANY_ORIGIN: Headers = {
  'access-control-allow-origin': '*', // the credential is a header, never a cookie
  'access-control-expose-headers': 'ETag, Retry-After, WWW-Authenticate, X-Request-Id',
};
// The MCP endpoint answers browsers only from allowed origins (src/mcp/endpoint.ts says which).
const OWN_CORS_PATH = '/mcp';
const PRIVATE_PREFIX = '/api/v1/conversations';
const METHODS_FOR_CONNECT = 'GET, HEAD, POST, OPTIONS'; // every method this service answers somewhere

// Public answers may be stored, but are revalidated every time: the owner's listing
// changes show on the next request, and an unchanged answer costs a 304 and no body.
const PUBLIC_CACHE_CONTROL = 'public, no-cache';

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

/** A 200 with the answer's ETag, or a 304 when the client's If-None-Match already has it. */
export function conditionalReply(
  req: IncomingMessage,
  answer: { bytes: Buffer; etag: string },
  contentType?: string,
): Reply {
  const headers = { etag: answer.etag, 'cache-control': PUBLIC_CACHE_CONTROL };
  const ifNoneMatch = req.headers['if-none-match'];
  const matches =
    ifNoneMatch?.trim() === '*' ||
    ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === answer.etag);
  return matches ? { status: 304, body: '', headers } : { status: 200, body: answer.bytes, headers, contentType };
}

/** The node:http server, with its limits and answers for what never reaches a route. */
export function createHttpServer(timeouts: ServerTimeouts = SERVER_TIMEOUTS): http.Server {
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval } = timeouts;
  const server = http.createServer({
    headersTimeout,
    requestTimeout,
    keepAliveTimeout,
    connectionsCheckingInterval,
    maxHeaderSize: MAX_HEADER_BYTES,
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerUnparsed(err, socket));
  server.on('connect', (_req: IncomingMessage, socket: Socket) =>
    answerRaw(socket, refuse('methodNotAllowed', 'CONNECT', 'this server', METHODS_FOR_CONNECT)),
  );
  // Without this listener Node sends 100 Continue by itself; body.ts sends it once the body is wanted.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
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

/** Unknown paths and methods are refused too, after taking from the per-address request limit. */
const unrouted = (
  match: { kind: 'not-found' } | { kind: 'method-not-allowed'; pattern: string; allow: string },
): Handler =>
  limited((ctx) => {
    const method = ctx.req.method ?? 'GET';
    if (match.kind === 'not-found') throw refuse('noRoute', method); // the path is not echoed: it may hold a credential
    if (method !== 'OPTIONS') throw refuse('methodNotAllowed', method, match.pattern, match.allow);
    return {
      status: 204,
      body: '',
      headers: {
        allow: match.allow,
        'access-control-allow-methods': match.allow,
        'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
        'access-control-max-age': '86400',
      },
    };
  });

/** The 'request' listener for a route table. */
export function createRequestHandler(app: App, routes: readonly Route<Handler>[]) {
  const router = createRouter(routes);

  return function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const requestId = randomUUID();
    const clientAddress = clientAddressOf(req, app.config.trustProxy);
    const method = req.method ?? 'GET';
    const { path, rawQuery } = splitTarget(req.url ?? '/');
    let route: string | null = null;
    const log = (status: number | null, extra: Record<string, string | number | boolean> = {}) =>
      app.log({
        time: new Date().toISOString(),
        request_id: requestId,
        method,
        route,
        status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        client: clientAddress,
        ...extra,
      });
    const respond = (status: number, body: string | Buffer, headers: Headers = {}, contentType = JSON_TYPE) => {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      const head: Headers = {
        ...(path === OWN_CORS_PATH ? {} : ANY_ORIGIN),
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
      };
      if (path.startsWith(PRIVATE_PREFIX)) head['cache-control'] = 'no-store';
      if (bytes.length > 0)
        Object.assign(head, { 'content-type': contentType, 'content-length': String(bytes.length) });
      res.writeHead(status, { ...head, ...headers }).end(bytes);
      log(status);
    };

    const settle = (reply: Reply) => {
      const body =
        typeof reply.body === 'string' || Buffer.isBuffer(reply.body) ? reply.body : `${JSON.stringify(reply.body)}\n`;
      respond(reply.status, body, reply.headers, reply.contentType);
    };
    const fail = (err: unknown) => {
      if (err instanceof ClientGoneError) return log(null, { aborted: true }); // nothing was stored, nobody to answer
      const { refusal, expected } = asRefusal(err);
      if (!expected) app.logUnexpected(requestId, err);
      if (res.headersSent || res.destroyed || !req.socket.writable) return;
      respond(refusal.status, `${errorBody(refusal)}\n`, refusal.headers);
    };
    try {
      const match = router.match(method, path);
      const handler = match.kind === 'found' ? match.handler : unrouted(match);
      route = match.kind === 'not-found' ? null : match.pattern;
      const params = match.kind === 'found' ? match.params : {};
      const reply = handler({
        app,
        req,
        rawQuery,
        params,
        clientAddress,
        requestId,
        readJson: (maxBytes) => readJsonBody(req, res, maxBytes),
      });
      if (reply instanceof Promise) reply.then(settle, fail);
      else settle(reply);
    } catch (err) {
      fail(err);
    }
  };
}

/** Splits a request target into its raw path and raw query (an absolute-form target too). */
function splitTarget(target: string): { path: string; rawQuery: string } {
  const relative = target.startsWith('/') ? target : target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  const withoutHash = relative.split('#')[0] as string;
  const mark = withoutHash.indexOf('?');
  return mark === -1
    ? { path: withoutHash, rawQuery: '' }
    : { path: withoutHash.slice(0, mark), rawQuery: withoutHash.slice(mark + 1) };
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
function answerUnparsed(err: NodeJS.ErrnoException, socket: Socket): void {
  const responseStarted = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || responseStarted) return void socket.destroy();
  answerRaw(
    socket,
    err.code === 'HPE_HEADER_OVERFLOW'
      ? refuse('headersTooLarge')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? refuse('requestTimeout')
        : refuse('malformedHttp'),
  );
}

/** Writes a refusal straight to a socket that has no response object, and closes it. */
function answerRaw(socket: Socket, refusal: Refusal): void {
  const body = `${errorBody(refusal)}\n`;
  const headers = Object.entries({
    ...refusal.headers,
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    'access-control-allow-origin': '*',
    connection: 'close',
  });
  socket.end(
    `HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status]}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`,
  );
}
