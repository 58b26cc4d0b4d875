// What outbound requests may reach beyond public addresses over https: the hosts the owner lists in
// OUTBOUND_ALLOWED_HOSTS, each a name or an address, with or without a port. A bare host allows every
// port of it; `host:port` only that port (recommended: allowing one intranet receiver then opens no
// other service of that machine). Such a host may use http and be private: for an intranet, and for tests.

import type { LookupAddress } from 'node:dns';
import { isIPv6 } from 'node:net';

export interface OutboundPolicy {
  /** OUTBOUND_ALLOWED_HOSTS: `name`, `name:port`, an address, `[ipv6]:port` */
  readonly allowedHosts: readonly string[];
  /** for tests; default dns.lookup */
  readonly resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
  /** for tests; default 5 s */
  readonly lookupTimeoutMs?: number;
  /** the lookups of this policy under way, and its budget of them (lookups.ts); by default, the process's */
  readonly lookups?: { inFlight: number; readonly max: number };
}

/** Whether the URL's host and port are allowed by an entry of the policy. */
export function isAllowedHost(url: URL, policy: OutboundPolicy): boolean {
  const host = hostKey(url.hostname);
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  return policy.allowedHosts.some((entry) => {
    const allowed = allowedEntry(entry);
    return allowed.host === host && (allowed.port === null || allowed.port === port);
  });
}

/** An entry as a host and a port (null: any port). Several colons without brackets: an IPv6 address. */
function allowedEntry(entry: string): { host: string; port: string | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: hostKey(bracketed[1] as string), port: bracketed[2] ?? null };
  const named = /^([^:]+):(\d+)$/.exec(entry);
  if (named) return { host: hostKey(named[1] as string), port: named[2] as string };
  return { host: hostKey(entry), port: null };
}

/** One spelling per host: lower case, no brackets, no final dot, IPv6 in its shortest form. */
function hostKey(host: string): string {
  const bare = bareHost(host.toLowerCase()).replace(/\.$/, '');
  return isIPv6(bare) ? bareHost(URL.parse(`http://[${bare}]/`)?.hostname ?? bare) : bare;
}

/** A host without the brackets an IPv6 address has in a URL. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}
