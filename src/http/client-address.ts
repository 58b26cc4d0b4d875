// The client's address, as every per-address rate and quota counts it: the socket's, or behind a
// trusted proxy (TRUST_PROXY=1) the last X-Forwarded-For hop.

import type { IncomingMessage } from 'node:http';

/** The address of the client that sent `req`. */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').at(-1)?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? 'unknown';
}
