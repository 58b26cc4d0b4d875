// Which sender a client address counts as, for every per-address limit (the request limit,
// openings per hour, the address's share of the day). An IPv6 client usually holds a whole
// /64, and a new address in it costs nothing: counted one by one, one client could take every
// share. So an IPv6 address counts as its /64, and an IPv4-mapped one as its IPv4 address.

import { parseIPv6 } from '../base/addresses.ts';

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
