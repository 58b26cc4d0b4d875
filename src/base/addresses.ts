// Which addresses are public, and what the others are, in words for messages: the special-purpose
// blocks of IPv4 and IPv6, IPv4 inside IPv6 judged by the IPv4 address. The outbound guard calls
// only public addresses (outbound/guard.ts); the per-address limits read IPv6 addresses here
// (rules/rates.ts networkOf).

import { isIPv4, isIPv6 } from 'node:net';

/** A block of addresses; `embedsIPv4At` is set for IPv6 forms judged by the IPv4 address inside. */
interface Range {
  readonly base: bigint;
  readonly bits: number;
  readonly what: string;
  readonly embedsIPv4At?: bigint;
}

// From the IANA IPv4 Special-Purpose Address Registry (iana-ipv4-special-registry): every block that
// is not globally reachable, plus multicast (RFC 5771). 192.0.0.0/24 is refused whole, its two anycast
// /32s included: neither is an HTTP receiver. The first match names the address in messages.
const IPV4_NOT_PUBLIC: readonly Range[] = [
  ...ranges('a "this network" address', '0.0.0.0/8'),
  ...ranges('a private address', '10.0.0.0/8 172.16.0.0/12 192.168.0.0/16'),
  ...ranges('a shared (carrier-grade NAT) address', '100.64.0.0/10'),
  ...ranges('a loopback address', '127.0.0.0/8'),
  ...ranges('a link-local address', '169.254.0.0/16'),
  ...ranges('an IETF protocol assignment address', '192.0.0.0/24'),
  ...ranges('a documentation address', '192.0.2.0/24 198.51.100.0/24 203.0.113.0/24'),
  ...ranges('a deprecated 6to4 relay address', '192.88.99.0/24'),
  ...ranges('a benchmarking address', '198.18.0.0/15'),
  ...ranges('a multicast address', '224.0.0.0/4'),
  ...ranges('the broadcast address', '255.255.255.255/32'),
  ...ranges('a reserved address', '240.0.0.0/4'),
];

// From the IANA IPv6 Special-Purpose Address Registry (iana-ipv6-special-registry), plus site-local and
// multicast. 2001::/23 is refused whole: Teredo reaches a host only through a relay and hides its IPv4,
// and the block's few reachable parts (AMT, AS112, ORCHID) are no HTTP receivers. An embedded IPv4 address
// is reached (by the host's own stack, a NAT64 translator or a 6to4 relay), so it decides. Anything outside
// 2000::/3, the only global unicast space, is refused. The first match counts.
const IPV6_SPECIAL: readonly Range[] = [
  ...ranges('the unspecified address', '::/128'),
  ...ranges('a loopback address', '::1/128'),
  ...ranges('an IPv4-compatible form of', '::/96', 0n),
  ...ranges('an IPv4-mapped form of', '::ffff:0:0/96', 0n),
  ...ranges('a NAT64 form of', '64:ff9b::/96', 0n),
  ...ranges('a 6to4 form of', '2002::/16', 80n),
  ...ranges('a local-use IPv4/IPv6 translation address', '64:ff9b:1::/48'),
  ...ranges('a discard-only address', '100::/64'),
  ...ranges('an IETF protocol assignment (Teredo included) address', '2001::/23'),
  ...ranges('a documentation address', '2001:db8::/32 3fff::/20'),
  ...ranges('a unique-local address', 'fc00::/7'),
  ...ranges('a link-local address', 'fe80::/10'),
  ...ranges('a site-local address', 'fec0::/10'),
  ...ranges('a multicast address', 'ff00::/8'),
  ...ranges('an address outside the global unicast space', '::/3 4000::/2 8000::/1'),
];
export const PUBLIC = 'public';

/** True when the address (an IPv4 or IPv6 literal, without brackets) is public and may be called. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === PUBLIC;
}

/** 'public', or what the address is, as a noun phrase for messages ("a private address"). */
export function classifyAddress(address: string): string {
  const ipv4 = parseIPv4(address);
  const ipv6 = ipv4 === null ? parseIPv6(address) : null;
  return ipv4 !== null ? classifyIPv4(ipv4) : ipv6 !== null ? classifyIPv6(ipv6) : 'not an IP address';
}

function classifyIPv4(address: bigint): string {
  return IPV4_NOT_PUBLIC.find((range) => inRange(address, range, 32))?.what ?? PUBLIC;
}

function classifyIPv6(address: bigint): string {
  const range = IPV6_SPECIAL.find((candidate) => inRange(address, candidate, 128));
  if (range === undefined) return PUBLIC;
  if (range.embedsIPv4At === undefined) return range.what;
  const inner = classifyIPv4((address >> range.embedsIPv4At) & 0xffff_ffffn);
  return inner === PUBLIC ? PUBLIC : `${range.what} ${inner}`;
}

function inRange(address: bigint, range: Range, width: number): boolean {
  const shift = BigInt(width - range.bits);
  return address >> shift === range.base >> shift;
}

/** The blocks ("base/bits", space-separated) that share a description. */
function ranges(what: string, cidrs: string, embedsIPv4At?: bigint): Range[] {
  return cidrs.split(' ').map((cidr) => {
    const [base = '', bits] = cidr.split('/');
    return { base: (parseIPv4(base) ?? parseIPv6(base)) as bigint, bits: Number(bits), what, embedsIPv4At };
  });
}

export function parseIPv4(text: string): bigint | null {
  // node:net's isIPv4 takes only four decimal parts from 0 to 255 without leading zeros.
  if (!isIPv4(text)) return null;
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

export function parseIPv6(text: string): bigint | null {
  // The WHATWG URL parser refuses a zone ("fe80::1%eth0": a local link) and writes a dotted IPv4 tail as
  // two hex groups, leaving eight groups, or fewer around exactly one "::".
  const hex = isIPv6(text) ? URL.parse(`http://[${text}]/`)?.hostname.slice(1, -1) : undefined;
  if (hex === undefined) return null;
  const [left = '', right] = hex.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const zeros = right === undefined ? [] : Array<string>(8 - head.length - tail.length).fill('0');
  return [...head, ...zeros, ...tail].reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}
