// Who a sender is. Which sender a client address counts as, for every per-address limit (the request
// limit, openings per hour, the address's share of the day): an IPv6 client usually holds a whole
// /64, and a new address in it costs nothing: counted one by one, one client could take every share.
// So an IPv6 address counts as its /64, and an IPv4-mapped one as its IPv4 address. And the site the
// owner names to block or trust every verified agent of it.

import { domainToASCII } from 'node:url';
import { parseIPv6 } from '../base/addresses.ts';
import { siteOfHost } from '../base/sites.ts';
import { refuse } from '../refusals/refusal.ts';

const MAPPED_IPV4 = 0xffffn; // ::ffff:a.b.c.d, the top 96 bits of an IPv4-mapped address

/** The sender an address counts as: an IPv4 address itself, an IPv6 address its /64. */
export function senderOf(address: string): string {
  if (!address.includes(':')) return address; // IPv4, or what a proxy sent: no IPv6 address lacks a colon
  const ipv6 = parseIPv6(address);
  if (ipv6 === null) return address; // not an address: what a proxy sent, as it is
  if (ipv6 >> 32n === MAPPED_IPV4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((ipv6 >> shift) & 0xffn)).join('.');
  }
  const groups = [48n, 32n, 16n, 0n].map((shift) => (((ipv6 >> 64n) >> shift) & 0xffffn).toString(16));
  return `${groups.join(':')}::/64`;
}

/** The site the owner names (`agent.example`), in the spelling sites are kept in; refuses what is not one. */
export function siteNamed(given: string): string {
  const host = domainToASCII(given.trim().toLowerCase());
  if (host === '' || !/^[a-z0-9.-]+$/.test(host) || host.startsWith('.') || host.endsWith('.')) {
    throw refuse('not_a_site', given, 'give a registrable domain such as agent.example (no scheme, port or path)');
  }
  const site = siteOfHost(host);
  if (site !== host) throw refuse('not_a_site', given, `the site it belongs to is ${site}`);
  return site;
}
