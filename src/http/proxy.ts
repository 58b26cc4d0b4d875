// What a reverse proxy changes, and the two notices of one set up wrong. The client's address, as every
// per-address rate and quota counts it: the socket's, or behind a trusted proxy (TRUST_PROXY=1) the
// last X-Forwarded-For hop, read as an address: a hop written with a port, brackets or an IPv6 zone is
// the same client as without them, and a hop that is not an address at all is ignored (the socket's
// address counts), so that no spelling makes a new client. With TRUST_PROXY off, the first request
// that carries the header is logged: a forgotten setting behind a proxy would otherwise only show as
// everyone sharing the proxy's limits. And the first request for a host PUBLIC_BASE_URL does not name.

import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { RunningConfig } from '../base/config.ts';
import type { Log } from '../base/log.ts';
import { ownHosts } from './origins.ts';

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

/**
 * Logs, once a run, the first request that carries X-Forwarded-For while TRUST_PROXY is off: behind
 * a proxy, every client then counts as the proxy's address, and one address's limits are everyone's.
 * The header's value is anyone's to write, and never logged. A request without the header costs
 * one lookup; once logged, or with TRUST_PROXY on, nothing is looked at.
 */
export function createProxyNotice(trustProxy: boolean, log: Log): (req: IncomingMessage) => void {
  let noticed = trustProxy;
  return (req) => {
    if (noticed || req.headers['x-forwarded-for'] === undefined) return;
    noticed = true;
    const from = req.socket.remoteAddress ?? 'an unknown address';
    log({
      time: new Date().toISOString(),
      level: 'warn',
      warning:
        `A request from ${from} carried X-Forwarded-For, but TRUST_PROXY is off: each request counts as from ` +
        `the address it came from, so every client behind a proxy at ${from} shares one address's limits ` +
        `(openings an hour, requests a minute, messages a day). If ${from} is your reverse proxy, set ` +
        'TRUST_PROXY=1 to count each client by the last X-Forwarded-For hop (logged once).',
    });
  };
}

/**
 * Logs, once a run, the first request whose Host is not one of this service's: behind a proxy
 * without PUBLIC_BASE_URL (or with the wrong one), agents are given links to the wrong host and
 * the protocol doors refuse the right one. After that, nothing is checked.
 */
export function createHostNotice(config: RunningConfig, log: Log): (req: IncomingMessage) => void {
  let noticed = false;
  const hosts = ownHosts(config);
  return (req) => {
    if (noticed) return;
    const host = req.headers.host;
    if (host === undefined || hosts.has(host.toLowerCase())) return;
    noticed = true;
    const named = host.slice(0, 100).replace(/[^A-Za-z0-9.:[\]-]/g, '?');
    log({
      time: new Date().toISOString(),
      level: 'warn',
      warning:
        `A request came for the host ${named}, which PUBLIC_BASE_URL (${config.publicBaseUrl}) does not name: ` +
        'links, /llms.txt and the agent card name PUBLIC_BASE_URL, and /mcp and /a2a refuse other hosts. ' +
        `If agents reach this service as ${named}, set PUBLIC_BASE_URL to that URL (logged once).`,
    });
  };
}
