// The one guard that every outbound request passes (signed webhooks, A2A push notifications, listing
// read-checks). The URL comes from an untrusted agent, so the sender must not become a way into the
// owner's network (after stripe/smokescreen): https only, no user:pass@, connections only to addresses
// checked public. Hosts in OUTBOUND_ALLOWED_HOSTS may also use http and be private: for an intranet, and
// for tests. Any port, as in smokescreen: the guard protects the owner's network, not other hosts' ports.
// No redirect is followed, one time-out covers lookup to last byte, the body is bounded, no cookie sent.
// A refusal (OutboundRefusal) cannot pass on a retry; a plain Error (time-out, refused, TLS, DNS) may.

import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, isIPv4, isIPv6, type LookupFunction } from 'node:net';
import { addAbortSignal } from 'node:stream';

export interface OutboundPolicy {
  readonly allowedHosts: readonly string[]; // lower-case names or IP literals that may use http and be private
  readonly resolve?: (hostname: string) => Promise<readonly LookupAddress[]>; // for tests; default dns.lookup
  readonly lookupTimeoutMs?: number; // for tests; default LOOKUP_TIMEOUT_MS
}

// A name whose DNS server never answers must not hold a registration, a delivery or a check for
// long: the lookup is given up after this (it may go on in the background; its answer is dropped).
const LOOKUP_TIMEOUT_MS = 5_000;

/** A URL that breaks one of the rules, with a message an agent can act on. */
export class OutboundRefusal extends Error {
  readonly rule: 'url' | 'length' | 'scheme' | 'userinfo' | 'address' | 'resolve';
  constructor(rule: OutboundRefusal['rule'], message: string) {
    super(message);
    this.name = 'OutboundRefusal';
    this.rule = rule;
  }
}

export interface OutboundRequest {
  readonly method: 'GET' | 'HEAD' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs?: number; // for the whole request, lookup to last byte read
  readonly maxBodyBytes?: number; // of the answer's body kept; the rest is not read
}

export interface OutboundAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export const MAX_URL_LENGTH = 2048; // the usual practical limit of browsers and servers; longer is not a webhook
export const DEFAULT_TIMEOUT_MS = 10_000; // GitHub's webhook time-out: a receiver should answer at once
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024; // the service only looks at the status and a short answer
const ECHO_LIMIT = 100; // characters of a URL or host repeated in a message, so an error never carries a page
const DROPPED_HEADERS = new Set(['cookie', 'host', 'content-length']); // never sent; the URL's; computed here

/** A block of addresses; `embedsIPv4At` is set for IPv6 forms judged by the IPv4 address inside. */
interface Range { readonly base: bigint; readonly bits: number; readonly what: string; readonly embedsIPv4At?: bigint }

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
const PUBLIC = 'public';

/** True when the address (an IPv4 or IPv6 literal, without brackets) is public and may be called. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === PUBLIC;
}

/** 'public', or what the address is, as a noun phrase for messages ("a private address"). */
function classifyAddress(address: string): string {
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

function parseIPv4(text: string): bigint | null {
  // node:net's isIPv4 takes only four decimal parts from 0 to 255 without leading zeros.
  if (!isIPv4(text)) return null;
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function parseIPv6(text: string): bigint | null {
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

/** The static rules (string, length, https or an allowed host, no user:pass@, IP literal); the parsed URL. */
export function checkOutboundUrl(raw: unknown, policy: OutboundPolicy): URL {
  if (typeof raw !== 'string') throw new OutboundRefusal('url', 'the URL must be a string');
  if (raw.length > MAX_URL_LENGTH) {
    throw new OutboundRefusal('length', `the URL must be at most ${MAX_URL_LENGTH} characters (it has ${raw.length})`);
  }
  const url = URL.parse(raw);
  if (url === null) throw new OutboundRefusal('url', 'the URL is not a valid absolute URL (https://host/path)');
  const allowed = isAllowedHost(url.hostname, policy);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) {
    const only = url.protocol === 'http:' ? '; http is only for hosts the owner of this service allows' : '';
    throw new OutboundRefusal('scheme', `the URL must use https, not ${echo(url.protocol.slice(0, -1))}${only}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundRefusal('userinfo', 'the URL must not hold a user name or password (user:pass@)');
  }
  const host = bareHost(url.hostname);
  if (isIP(host) !== 0 && !allowed) refuseUnlessPublic(host, `the URL's host ${echo(host)} is`);
  return url;
}

/** For registration: every address the URL's host resolves to must be public (unless it is allowed). */
export async function checkResolvesPublic(url: URL, policy: OutboundPolicy): Promise<void> {
  await resolveChecked(bareHost(url.hostname), policy).catch((err: NodeJS.ErrnoException) => {
    throw err instanceof OutboundRefusal ? err : new OutboundRefusal('resolve', unresolved(url));
  });
}

/** Every address of a host, all public or the host allowed: one address not public refuses the name. */
async function resolveChecked(host: string, policy: OutboundPolicy): Promise<LookupAddress[]> {
  const allowed = isAllowedHost(host, policy);
  if (isIP(host) !== 0) {
    if (!allowed) refuseUnlessPublic(host, `the URL's host ${echo(host)} is`);
    return [{ address: host, family: isIP(host) }];
  }
  const lookup = (policy.resolve ?? ((name) => dnsLookup(name, { all: true })))(host);
  const found = await withTimeout(lookup, policy.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS);
  // Copies, so that what is connected to is exactly what was checked.
  const addresses = found.map(({ address }) => ({ address: String(address), family: isIP(String(address)) }));
  if (addresses.length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
  if (!allowed && addresses.some(({ address }) => classifyAddress(address) !== PUBLIC)) {
    throw new OutboundRefusal('address', notPublicName(host));
  }
  return addresses;
}

/** The lookup's answer, or a rejection with code ETIMEOUT once `ms` have passed. */
async function withTimeout<T>(lookup: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('the lookup timed out'), { code: 'ETIMEOUT' })), ms);
  });
  try {
    return await Promise.race([lookup, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One sentence for a name that resolves to an address this service does not call and for one that
 * does not resolve: an agent must not learn the owner's internal names, or their addresses.
 */
function notPublicName(host: string): string {
  return `the host ${echo(host)} does not resolve to public addresses only; this service calls no other`;
}

function refuseUnlessPublic(address: string, subject: string): void {
  const what = classifyAddress(address);
  const message = `${subject} ${what} (${echo(address)}), which this service does not call`;
  if (what !== PUBLIC) throw new OutboundRefusal('address', message);
}

function unresolved(url: URL): string {
  return notPublicName(url.hostname);
}

function isAllowedHost(hostname: string, policy: OutboundPolicy): boolean {
  const key = hostKey(hostname);
  return policy.allowedHosts.some((allowed) => hostKey(allowed) === key);
}

/** One spelling per host: lower case, no brackets, no final dot, IPv6 in its shortest form. */
function hostKey(host: string): string {
  const bare = bareHost(host.toLowerCase()).replace(/\.$/, '');
  return isIPv6(bare) ? bareHost(URL.parse(`http://[${bare}]/`)?.hostname ?? bare) : bare;
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function echo(text: string): string {
  return text.length <= ECHO_LIMIT ? text : `${text.slice(0, ECHO_LIMIT)}…`;
}

/** One request under every rule above: its status, headers and bounded body, or OutboundRefusal, or Error. */
export async function sendOutbound(url: URL, init: OutboundRequest, policy: OutboundPolicy): Promise<OutboundAnswer> {
  // Checked again here, so that no caller can send past the rules.
  const checked = checkOutboundUrl(url.href, policy);
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await startRequest(checked, init, policy, signal);
    const body = await readBounded(response, init.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, signal);
    return { status: response.statusCode ?? 0, headers: response.headers, body };
  } catch (err) {
    // A refusal from checkedLookup arrives here as the request's error, the same object.
    if (err instanceof OutboundRefusal) throw err;
    if (signal.aborted) throw new Error(`the request to ${echo(checked.host)} did not finish within ${timeoutMs} ms`);
    throw new Error(describeFailure(err as NodeJS.ErrnoException, checked), { cause: err });
  }
}

function startRequest(url: URL, init: OutboundRequest, policy: OutboundPolicy, signal: AbortSignal) {
  const headers = Object.entries(init.headers).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase()));
  if (init.body !== undefined) headers.push(['Content-Length', String(Buffer.byteLength(init.body))]);
  const options: https.RequestOptions = {
    hostname: bareHost(url.hostname),
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: init.method,
    headers: Object.fromEntries(headers),
    lookup: checkedLookup(policy), // the addresses checked are the ones connected to
    signal,
    agent: false, // a fresh connection, closed after the answer: no socket outlives its checks
    // Certificates are always checked, even under NODE_TLS_REJECT_UNAUTHORIZED=0. Node sends the URL's
    // host name as SNI and in Host, and verifies the certificate against it.
    rejectUnauthorized: true,
  };
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = url.protocol === 'https:' ? https.request(options, resolve) : http.request(options, resolve);
    request.on('error', reject);
    request.end(init.body);
  });
}

/** Node calls this for names (not IP literals) and connects only to the addresses it hands back. */
function checkedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, policy).then(
      (addresses) => {
        // With autoSelectFamily (Node's default) it asks for all of them and tries each in turn.
        if (options.all === true) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** The body up to maxBytes; past that the connection is closed and the rest is never read. */
async function readBounded(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal) {
  addAbortSignal(signal, response); // the time-out covers the body too
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk.subarray(0, maxBytes - kept));
    kept += chunks.at(-1)!.length;
    if (kept >= maxBytes) break; // leaving the loop destroys the response
  }
  return Buffer.concat(chunks, kept);
}

function describeFailure(err: NodeJS.ErrnoException, url: URL): string {
  const code = err.code ?? '';
  const host = echo(url.host);
  if (/^(ENOTFOUND|ENODATA|EAI_|ETIMEOUT)/.test(code)) return unresolved(url);
  if (code === 'ECONNREFUSED') return `the connection to ${host} was refused`;
  if (code === 'ECONNRESET') return `the connection to ${host} was closed before the answer was complete`;
  if (/CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME|INVALID_CA|TLS|SSL/.test(code)) return `TLS with ${host} failed (${code})`;
  return `the request to ${host} failed (${code || echo(err.message)})`;
}
