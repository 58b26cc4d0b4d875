// The node:http server itself: its time and size limits, the answers for what Node refuses
// before any route sees it, and a graceful close.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, refuse, type Refusal } from '../refusals/refusal.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const METHODS_FOR_CONNECT = 'GET, HEAD, POST, PUT, DELETE, OPTIONS'; // every method this service answers somewhere
const MAX_HEADER_BYTES = 16_384;

// Slow or greedy clients cannot hold a connection: these bound every phase of a request.
export const SERVER_TIMEOUTS = Object.freeze({
  headersTimeout: 10_000, // all headers within 10 s
  requestTimeout: 30_000, // the whole request, body included, within 30 s
  keepAliveTimeout: 5_000, // an idle kept-alive connection is closed after 5 s
  connectionsCheckingInterval: 1_000, // how often the two timeouts above are enforced
  shutdownGrace: 5_000, // on shutdown, connections still open after 5 s are closed
});
export type ServerTimeouts = { readonly [K in keyof typeof SERVER_TIMEOUTS]: number };

/** The node:http server, with its limits and answers for what never reaches a route. */
export function createHttpServer(timeouts: ServerTimeouts = SERVER_TIMEOUTS): http.Server {
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval } = timeouts;
  const server = http.createServer({
    headersTimeout,
    requestTimeout,
    keepAliveTimeout,
    connectionsCheckingInterval,
    maxHeaderSize: MAX_HEADER_BYTES,
    requireHostHeader: false, // refused by the service instead, with its error body (request-handler.ts)
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerUnparsed(err, socket));
  server.on('connect', (_req: IncomingMessage, socket: Socket) =>
    answerRaw(socket, refuse('method_not_allowed', 'CONNECT', 'this server', METHODS_FOR_CONNECT)),
  );
  // Without this listener Node sends 100 Continue by itself; body.ts sends it once the body is wanted.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  // Any other Expect: Node would answer a bare 417; the service refuses it with its error body (request-handler.ts).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
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

/** Node's parser refused the request (bad request line, headers too large, timeout). */
function answerUnparsed(err: NodeJS.ErrnoException, socket: Socket): void {
  const responseStarted = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || responseStarted) return void socket.destroy();
  if (err.code === 'HPE_HEADER_OVERFLOW') return answerRaw(socket, refuse('headers_too_large'));
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return answerRaw(socket, refuse('request_timeout'));
  answerRaw(socket, refuse('malformed_http'));
}

// A refused client's socket is destroyed once its answer is written, or after this long if the client
// reads nothing: the server's sockets are half-open (allowHalfOpen), so end() alone would keep the
// descriptor until the client closed its side, and 1,000 silent clients would hold 1,000 descriptors.
const REFUSED_SOCKET_GRACE_MS = 2_000;

/** Writes a refusal straight to a socket that has no response object, and closes it, read or not. */
function answerRaw(socket: Socket, refusal: Refusal): void {
  const body = `${errorBody(refusal)}\n`;
  const headers = Object.entries({
    ...refusal.headers,
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    'access-control-allow-origin': '*',
    connection: 'close',
  });
  const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  // Node takes its own error listener off a CONNECT's socket: a client that resets it while the answer
  // is written must not leave an 'error' that nothing hears, which would stop the server.
  socket.on('error', () => socket.destroy());
  const grace = setTimeout(() => socket.destroy(), REFUSED_SOCKET_GRACE_MS);
  grace.unref();
  socket.once('close', () => clearTimeout(grace));
  const answer = `HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status]}\r\n${head}\r\n${body}`;
  socket.end(answer, () => socket.destroy()); // written out: the descriptor goes, whether the client reads or not
}
