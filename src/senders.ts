// Which sender a client address counts as, for every per-address limit (the request limit,
// openings per hour, the address's share of the day). An IPv6 client usually holds a whole
// /64, and a new address in it costs nothing: counted one by one, one client could take every
// share. So an IPv6 address counts as its /64, and an IPv4-mapped one as its IPv4 address.

import { isIPv6 } from 'node:net';

/** The sender an address counts as: an IPv4 address itself, an IPv6 address its /64. */
export function senderOf(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(address)) return address; // IPv4, or what a proxy sent, as it is
  const groups = groupsOf(address);
  if (groups.slice(0, 5).every((group) => group === '0') && groups[5] === 'ffff') {
    const [high, low] = [parseInt(groups[6] as string, 16), parseInt(groups[7] as string, 16)];
    return [high >> 8, high & 255, low >> 8, low & 255].join('.'); // mapped, written in hex
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address in hex, `::` expanded and an IPv4 tail as two groups. */
function groupsOf(address: string): string[] {
  let text = (address.split('%')[0] as string).toLowerCase(); // a zone (fe80::1%eth0) is not part of it
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
