// The HTTP layer, the only code that touches `res`. A request goes: socket → the router
// (on the raw path) → the per-address request limit → the path's parameters decoded → the
// route's guards and handler (routes.ts) → one reply, or one refusal as the error body,
// with the route's policy (caching, CORS) applied to either.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientGoneError, readJsonBody, type BodyOptions } from './body.ts';
import type { Handler, HttpService, LogFields, Policy, Reply, RpcId } from './context.ts';
import { corsForAllowedOrigin, doorPreflightHeaders } from './origins.ts';
import type { Headers } from '../refusals/entry.ts';
import { asRefusal, errorBody, refuse, type Refusal } from '../refusals/refusal.ts';
import { createRouter, decodeParams, splitTarget, type Route, type RouteMatch } from './router.ts';
import { clientAddressOf, createHostNotice, createProxyNotice } from './proxy.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const ANY_ORIGIN: Headers = {
  'access-control-allow-origin': '*', // the credential is a header, never a cookie
  'access-control-expose-headers': 'ETag, Retry-After, WWW-Authenticate, X-Request-Id',
};
/** A policy until the path is matched: public, readable from any origin, limited. */
const UNROUTED: Policy = { cache: 'public', cors: 'any', requestRate: true };

/** One request and its answer: what the log line and the policy need to know. */
interface Exchange {
  readonly app: HttpService;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  readonly requestId: string;
  readonly clientAddress: string;
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  route: string | null;
  policy: Policy;
  notes: LogFields;
  /** the body as read (undefined until it is), and whether reading it was begun */
  body: unknown;
  bodyRead: boolean;
  /** false once refused by the request rate: nothing more of it is read, not even a JSON-RPC id */
  mayRead: boolean;
}

// A refusal made before the body was wanted reads a body this small, at most, to echo its JSON-RPC id:
// the request limit refuses cheaply, and no JSON-RPC request this service answers needs more to say its id.
const EARLY_ID_BYTES = 16 * 1024;
const JSON_TYPES = ['application/json', 'application/a2a+json'];

// Request ids: unique in the logs of one run and across runs (a random prefix per start),
// without the cost of a random UUID per request.
const RUN_ID = randomUUID().slice(0, 8);
let requestCount = 0;

/**
 * The 'request' listener for a route table; `unroutedPolicy` says how a path that no route has
 * is answered (a protocol door answers unknown paths under its own prefix in its own way).
 */
export function createRequestHandler<A extends HttpService>(
  app: A,
  routes: readonly Route<Handler<A>, Policy>[],
  unroutedPolicy: (path: string) => Policy,
) {
  const router = createRouter(routes);
  const noticeHost = createHostNotice(app.config, app.log);
  const noticeProxy = createProxyNotice(app.config.trustProxy, app.log);

  return function handle(req: IncomingMessage, res: ServerResponse): void {
    const { path, rawQuery } = splitTarget(req.url ?? '/');
    const exchange: Exchange = {
      app,
      req,
      res,
      started: performance.now(),
      requestId: `${RUN_ID}-${(++requestCount).toString(36)}`,
      clientAddress: clientAddressOf(req, app.config.trustProxy),
      method: req.method ?? 'GET',
      path,
      rawQuery,
      route: null,
      policy: UNROUTED,
      notes: {},
      body: undefined,
      bodyRead: false,
      mayRead: true,
    };
    try {
      noticeHost(req);
      noticeProxy(req);
      const match = router.match(exchange.method, path);
      if (match.kind === 'not-found') exchange.policy = unroutedPolicy(path);
      const reply = dispatch(exchange, match as RouteMatch<Handler, Policy>);
      if (reply instanceof Promise) {
        reply.then((r) => settle(exchange, r)).catch((err: unknown) => failSafely(exchange, err));
      } else settle(exchange, reply);
    } catch (err) {
      failSafely(exchange, err);
    }
  };
}

/**
 * The request limit first, before anything about the path is decoded; then what Node lets
 * through for the service to refuse; then the route's handler.
 */
function dispatch(ex: Exchange, match: RouteMatch<Handler, Policy>): Reply | Promise<Reply> {
  if (match.kind !== 'not-found') {
    ex.route = match.pattern;
    ex.policy = match.policy;
  }
  if (ex.policy.requestRate) {
    const wait = ex.app.rates.requests.take(ex.clientAddress, ex.app.now());
    if (wait > 0) {
      ex.mayRead = false; // the rate refuses cheaply: a flood's bodies are never waited for
      throw refuse('too_many_requests', wait);
    }
  }
  const malformed = malformedHttp(ex.req);
  if (malformed !== null) {
    // Malformed HTTP is answered as HTTP, with the error body, whichever door the path belongs to.
    ex.policy = { ...ex.policy, refusalReply: undefined };
    throw malformed;
  }
  // The path is not echoed: it may hold a credential.
  if (match.kind === 'not-found') throw refuse('no_route', ex.method);
  if (match.kind === 'method-not-allowed') return preflightOrRefusal(ex, match.pattern, match.allow);
  return match.handler({
    app: ex.app,
    req: ex.req,
    rawQuery: ex.rawQuery,
    params: decodeParams(match.rawParams),
    clientAddress: ex.clientAddress,
    requestId: ex.requestId,
    readJson: (maxBytes, options) => readBody(ex, maxBytes, options),
    rpcId: () => rpcIdOf(ex),
    note: (fields) => Object.assign(ex.notes, fields),
    refusalOf: (err, extra) => refusalOf(ex, err, extra),
    whenGone: () => {
      const gone = new AbortController();
      // Aborted only when the client left first: aborting makes an error object, which costs.
      ex.res.once('close', () => {
        if (!ex.res.writableEnded) gone.abort();
      });
      return gone.signal;
    },
  });
}

/**
 * A known path without the method: an OPTIONS preflight gets 204, anything else 405 with
 * Allow. A protocol door's preflight names its own request headers; its CORS policy decides
 * whether the origin may read the answer at all.
 */
function preflightOrRefusal(ex: Exchange, pattern: string, allow: string): Reply {
  if (ex.method !== 'OPTIONS') throw refuse('method_not_allowed', ex.method, pattern, allow);
  const { cors } = ex.policy;
  if (cors !== 'any') {
    return { status: 204, body: '', headers: doorPreflightHeaders(ex.app.config, cors, ex.req, allow) };
  }
  const headers = {
    allow,
    'access-control-allow-methods': allow,
    'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
    'access-control-max-age': '86400',
  };
  return { status: 204, body: '', headers };
}

function settle(ex: Exchange, reply: Reply): void {
  const body =
    typeof reply.body === 'string' || Buffer.isBuffer(reply.body) ? reply.body : `${JSON.stringify(reply.body)}\n`;
  respond(ex, reply.status, body, reply.headers, reply.contentType);
}

/**
 * Any thrown value as the refusal its client gets: every door turns errors into answers here. An
 * unexpected one (a fault, not a refusal) is logged once with the request id its client got.
 */
function refusalOf(ex: Exchange, err: unknown, extra?: Record<string, string>): Refusal {
  const { refusal, expected } = asRefusal(err);
  if (!expected) ex.app.logUnexpected(ex.requestId, err, extra);
  return refusal;
}

/** The body, read once under `maxBytes` and kept for rpcIdOf. */
async function readBody(ex: Exchange, maxBytes: number, options?: BodyOptions): Promise<unknown> {
  ex.bodyRead = true;
  ex.body = await readJsonBody(ex.req, ex.res, maxBytes, options);
  return ex.body;
}

/** The JSON-RPC id of the body: read now if nothing has read it and it is small and plain; null when none. */
async function rpcIdOf(ex: Exchange): Promise<RpcId | null> {
  const length = Number(ex.req.headers['content-length']);
  if (ex.mayRead && !ex.bodyRead && length > 0 && length <= EARLY_ID_BYTES && ex.req.headers.expect === undefined) {
    await readBody(ex, EARLY_ID_BYTES, { mediaTypes: JSON_TYPES }).catch(() => undefined);
  }
  const id = typeof ex.body === 'object' && ex.body !== null ? (ex.body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as RpcId) : null;
}

function fail(ex: Exchange, err: unknown): void {
  if (err instanceof ClientGoneError) return log(ex, null, { aborted: true }); // nothing stored, nobody to answer
  const refusal = refusalOf(ex, err);
  ex.notes.refusal = refusal.reason;
  const { refusalReply, jsonRpc } = ex.policy;
  if (refusalReply === undefined) return answerRefusal(ex, () => settle(ex, restReply(refusal)));
  if (!jsonRpc) return answerRefusal(ex, () => settle(ex, refusalReply(refusal, null)));
  rpcIdOf(ex)
    .catch(() => null)
    .then((id) => answerRefusal(ex, () => settle(ex, refusalReply(refusal, id))))
    .catch((err: unknown) => lastResort(ex, err));
}

/** fail(), and if answering the refusal fails too, the last resort: no error escapes a request. */
function failSafely(ex: Exchange, err: unknown): void {
  try {
    fail(ex, err);
  } catch (failure) {
    lastResort(ex, failure);
  }
}

/** What cannot be answered is logged once and its connection dropped; the server goes on. */
function lastResort(ex: Exchange, err: unknown): void {
  try {
    ex.app.logUnexpected(ex.requestId, err);
  } catch {
    // the log itself failed: there is nowhere left to say so
  } finally {
    ex.res.destroy();
  }
}

/** Answers a refusal, unless the answer has begun or there is nobody left to read it. */
function answerRefusal(ex: Exchange, answer: () => void): void {
  if (ex.res.headersSent || ex.res.destroyed || !ex.req.socket.writable) return;
  answer();
}

function restReply(refusal: Refusal): Reply {
  return { status: refusal.status, body: `${errorBody(refusal)}\n`, headers: refusal.headers };
}

/** Sends the answer with the route's policy applied, and writes its log line. */
function respond(ex: Exchange, status: number, body: string | Buffer, headers: Headers = {}, contentType = JSON_TYPE) {
  // A string body goes to Node as it is: Node sends the head and a string body in one write.
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const cors = ex.policy.cors === 'any' ? ANY_ORIGIN : corsForAllowedOrigin(ex.app.config, ex.policy.cors, ex.req);
  const head: Headers = { ...cors, 'x-content-type-options': 'nosniff', 'x-request-id': ex.requestId };
  if (length > 0) {
    head['content-type'] = contentType;
    head['content-length'] = String(length);
  }
  Object.assign(head, headers);
  if (ex.policy.cache === 'private') head['cache-control'] = 'no-store'; // the policy has the last word
  ex.res.writeHead(status, head).end(body);
  log(ex, status, ex.notes);
}

function log(ex: Exchange, status: number | null, extra: LogFields): void {
  const entry = {
    time: new Date().toISOString(),
    request_id: ex.requestId,
    method: ex.method,
    route: ex.route,
    status,
    duration_ms: Math.round((performance.now() - ex.started) * 100) / 100,
    client: ex.clientAddress,
  };
  ex.app.log(Object.keys(extra).length === 0 ? entry : { ...entry, ...extra });
}

/**
 * What Node lets through for the service to refuse with its error body (asked after the request
 * rate): a missing or repeated Host (HTTP/1.1 requires exactly one), an Expect other than 100-continue.
 */
function malformedHttp(req: IncomingMessage): Refusal | null {
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase();
    if (name === 'host') hosts++;
    else if (name === 'expect' && req.rawHeaders[i + 1]?.toLowerCase() !== '100-continue') {
      return refuse('expectation_failed');
    }
  }
  return hosts > 1 || (hosts === 0 && req.httpVersion !== '1.0') ? refuse('host_header') : null;
}
