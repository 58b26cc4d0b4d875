// The client's address, as every per-address rate and quota counts it: the socket's, or behind a
// trusted proxy (TRUST_PROXY=1) the last X-Forwarded-For hop, read as an address: a hop written
// with a port, brackets or an IPv6 zone is the same sender as without them, and a hop that is not
// an address at all is ignored (the socket's address counts), so that no spelling makes a new sender.

import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** The address of the client that sent `req`. */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').at(-1)?.trim();
    const address = last ? addressOfHop(last) : null;
    if (address !== null) return address;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/** A hop as a bare address: `[2001:db8::1]:443` → 2001:db8::1, `3.3.3.3:1234` → 3.3.3.3; null if none. */
function addressOfHop(hop: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  const bare = bracketed?.[1] ?? withPort?.[1] ?? hop;
  const address = bare.replace(/%[^%]*$/, ''); // a zone names a link on the proxy's machine, not a sender
  return isIP(address) !== 0 ? address : null;
}
