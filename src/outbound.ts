// The one guard that every outbound request of the service passes: signed webhooks, A2A push
// notifications, listing read-checks. The URL comes from an untrusted agent, so the sender must not
// become a way into the owner's network (after stripe/smokescreen): https only, no user:pass@, and a
// connection only to addresses that were checked and are public. Hosts in OUTBOUND_ALLOWED_HOSTS may
// also use http and be private or loopback: for an intranet, and for tests. Any port is allowed, as in
// smokescreen: the guard protects the owner's network, and a public host's ports are its own business.
// Redirects are never followed; one time-out covers lookup, connect, TLS and answer; no cookie is sent.
// OutboundRefusal means a rule was broken and retrying the same URL cannot help; a plain Error means
// the request failed (time-out, refused connection, TLS, DNS) and a later retry may succeed.

import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, isIPv4, isIPv6, type LookupFunction } from 'node:net';

export interface OutboundPolicy {
  /** Lower-case host names or IP literals that may use http and be private or loopback. */
  readonly allowedHosts: readonly string[];
  /** Resolves a host name to every address; tests inject one. Default: the system resolver (dns.lookup). */
  readonly resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
}

export type OutboundRule = 'url' | 'length' | 'scheme' | 'userinfo' | 'address' | 'resolve';

/** A URL that breaks one of the rules, with a message an agent can act on. */
export class OutboundRefusal extends Error {
  readonly rule: OutboundRule;
  constructor(rule: OutboundRule, message: string) {
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

// --- Addresses -------------------------------------------------------------------------------------

interface Range { readonly base: bigint; readonly bits: number; readonly what: string }

// From the IANA IPv4 Special-Purpose Address Registry (iana-ipv4-special-registry): every block that
// is not globally reachable, plus multicast (RFC 5771). 192.0.0.0/24 is refused whole, its two anycast
// /32s included: neither is an HTTP receiver. The first match names the address in messages.
const IPV4_NOT_PUBLIC: readonly Range[] = [
  ...ranges('a "this network" address', '0.0.0.0/8'),
  ...ranges('a private address', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'),
  ...ranges('a shared (carrier-grade NAT) address', '100.64.0.0/10'),
  ...ranges('a loopback address', '127.0.0.0/8'),
  ...ranges('a link-local address', '169.254.0.0/16'),
  ...ranges('an IETF protocol assignment address', '192.0.0.0/24'),
  ...ranges('a documentation address', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'),
  ...ranges('a deprecated 6to4 relay address', '192.88.99.0/24'),
  ...ranges('a benchmarking address', '198.18.0.0/15'),
  ...ranges('a multicast address', '224.0.0.0/4'),
  ...ranges('the broadcast address', '255.255.255.255/32'),
  ...ranges('a reserved address', '240.0.0.0/4'),
];

// From the IANA IPv6 Special-Purpose Address Registry (iana-ipv6-special-registry), plus the
// deprecated site-local and multicast blocks. 2001::/23 is refused whole: Teredo (2001::/32) reaches
// a host only through a relay and hides the client's IPv4, and the block's few reachable /32s and
// /48s (AMT, AS112, ORCHID) are no HTTP receivers. Forms that embed an IPv4 address are judged by it
// (classifyIPv6 below); anything else outside 2000::/3, the only global unicast space, is refused.
const IPV6_NOT_PUBLIC: readonly Range[] = [
  ...ranges('the unspecified address', '::/128'),
  ...ranges('a loopback address', '::1/128'),
  ...ranges('a local-use IPv4/IPv6 translation address', '64:ff9b:1::/48'),
  ...ranges('a discard-only address', '100::/64'),
  ...ranges('an IETF protocol assignment (Teredo included) address', '2001::/23'),
  ...ranges('a documentation address', '2001:db8::/32', '3fff::/20'),
  ...ranges('a unique-local address', 'fc00::/7'),
  ...ranges('a link-local address', 'fe80::/10'),
  ...ranges('a site-local address', 'fec0::/10'),
  ...ranges('a multicast address', 'ff00::/8'),
];
const [IPV6_GLOBAL_UNICAST] = ranges('', '2000::/3') as [Range];
// Forms whose last 32 bits are an IPv4 address: the host's own stack, or a NAT64 translator, reaches it.
const EMBEDDING_LAST_32: readonly Range[] = [
  ...ranges('an IPv4-mapped form of', '::ffff:0:0/96'),
  ...ranges('an IPv4-compatible form of', '::/96'),
  ...ranges('a NAT64 form of', '64:ff9b::/96'),
];
// 6to4 carries the relay's IPv4 address in bits 16 to 47.
const [SIX_TO_FOUR] = ranges('a 6to4 form of', '2002::/16') as [Range];

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
  const special = IPV6_NOT_PUBLIC.find((range) => inRange(address, range, 128));
  if (special !== undefined) return special.what;
  const form = EMBEDDING_LAST_32.find((range) => inRange(address, range, 128));
  if (form !== undefined) return judgeEmbedded(form, address & 0xffff_ffffn);
  if (inRange(address, SIX_TO_FOUR, 128)) return judgeEmbedded(SIX_TO_FOUR, (address >> 80n) & 0xffff_ffffn);
  if (!inRange(address, IPV6_GLOBAL_UNICAST, 128)) return 'an address outside the global unicast space';
  return PUBLIC;
}

function judgeEmbedded(form: Range, ipv4: bigint): string {
  const inner = classifyIPv4(ipv4);
  return inner === PUBLIC ? PUBLIC : `${form.what} ${inner}`;
}

function inRange(address: bigint, range: Range, width: number): boolean {
  const shift = BigInt(width - range.bits);
  return address >> shift === range.base >> shift;
}

function ranges(what: string, ...cidrs: string[]): Range[] {
  return cidrs.map((cidr) => {
    const [base, bits] = cidr.split('/') as [string, string];
    return { base: (parseIPv4(base) ?? parseIPv6(base)) as bigint, bits: Number(bits), what };
  });
}

function parseIPv4(text: string): bigint | null {
  // node:net's isIPv4 takes only four decimal parts from 0 to 255 without leading zeros.
  if (!isIPv4(text)) return null;
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function parseIPv6(text: string): bigint | null {
  // isIPv6 accepts a zone ("fe80::1%eth0"); a zone only ever names a local link, so it is no address here.
  if (!isIPv6(text) || text.includes('%')) return null;
  let hex = text;
  const dotted = /\d+\.\d+\.\d+\.\d+$/.exec(text);
  if (dotted !== null) {
    const ipv4 = parseIPv4(dotted[0]) as bigint;
    hex = `${text.slice(0, dotted.index)}${(ipv4 >> 16n).toString(16)}:${(ipv4 & 0xffffn).toString(16)}`;
  }
  // isIPv6 has checked the shape: eight groups, or fewer around exactly one "::".
  const [left, right] = hex.split('::') as [string, string | undefined];
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const zeros = right === undefined ? [] : Array<string>(8 - head.length - tail.length).fill('0');
  return [...head, ...zeros, ...tail].reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}

// --- URLs and names --------------------------------------------------------------------------------

/** The static rules: a string of at most 2048 characters, https (or http to an allowed host), no
 * user:pass@, and an IP literal host that is public or allowed. Returns the parsed URL. */
export function checkOutboundUrl(raw: unknown, policy: OutboundPolicy): URL {
  if (typeof raw !== 'string') throw new OutboundRefusal('url', 'the URL must be a string');
  if (raw.length > MAX_URL_LENGTH) {
    throw new OutboundRefusal('length', `the URL must be at most ${MAX_URL_LENGTH} characters (it has ${raw.length})`);
  }
  const url = URL.parse(raw);
  if (url === null) throw new OutboundRefusal('url', `the URL is not a valid absolute URL: ${echo(raw)}`);
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
  try {
    await resolveChecked(bareHost(url.hostname), policy);
  } catch (err) {
    if (err instanceof OutboundRefusal) throw err;
    throw new OutboundRefusal('resolve', (err as Error).message);
  }
}

/** The checked addresses of a host: all of them public, or the host allowed. A name with one address
 * that is not public is refused as a whole, since the connection could go to any of them. */
async function resolveChecked(host: string, policy: OutboundPolicy): Promise<LookupAddress[]> {
  if (isIP(host) !== 0) {
    if (!isAllowedHost(host, policy)) refuseUnlessPublic(host, `the URL's host ${echo(host)} is`);
    return [{ address: host, family: isIP(host) }];
  }
  let found: readonly LookupAddress[];
  try {
    found = await (policy.resolve ?? ((name) => dnsLookup(name, { all: true })))(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'no answer';
    throw new Error(`the host ${echo(host)} does not resolve (${code})`);
  }
  // Copies, so that what is connected to is exactly what was checked.
  const addresses = found.map(({ address, family }) => ({ address: String(address), family: Number(family) }));
  if (addresses.length === 0) throw new Error(`the host ${echo(host)} does not resolve (no address)`);
  if (isAllowedHost(host, policy)) return addresses;
  for (const { address } of addresses) refuseUnlessPublic(address, `the host ${echo(host)} resolves to`);
  return addresses;
}

function refuseUnlessPublic(address: string, subject: string): void {
  const what = classifyAddress(address);
  if (what === PUBLIC) return;
  throw new OutboundRefusal('address', `${subject} ${what} (${echo(address)}), which this service does not call`);
}

function isAllowedHost(hostname: string, policy: OutboundPolicy): boolean {
  const key = hostKey(hostname);
  return policy.allowedHosts.some((allowed) => hostKey(allowed) === key);
}

/** One spelling per host: lower case, no brackets, no final dot, IPv6 in its shortest form. */
function hostKey(host: string): string {
  const bare = bareHost(host.toLowerCase()).replace(/\.$/, '');
  if (!isIPv6(bare)) return bare;
  return bareHost(URL.parse(`http://[${bare}]/`)?.hostname ?? bare);
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function echo(text: string): string {
  return text.length <= ECHO_LIMIT ? text : `${text.slice(0, ECHO_LIMIT)}…`;
}

// --- Sending ---------------------------------------------------------------------------------------

/** Sends one request under every rule above; answers with its status, headers and bounded body.
 * Rejects with OutboundRefusal for a broken rule, with a short Error for a failed request. */
export async function sendOutbound(url: URL, init: OutboundRequest, policy: OutboundPolicy) {
  // Checked again here, so that no caller can send past the rules.
  const checked = checkOutboundUrl(url.href, policy);
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await startRequest(checked, init, policy, signal);
    const body = await readBounded(response, init.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, signal);
    const answer: OutboundAnswer = { status: response.statusCode ?? 0, headers: response.headers, body };
    return answer;
  } catch (err) {
    // A refusal from checkedLookup reaches here as the request's error, the same object.
    if (err instanceof OutboundRefusal) throw err;
    const host = echo(checked.host);
    if (signal.aborted) throw new Error(`the request to ${host} did not finish within ${timeoutMs} ms`);
    throw new Error(describeFailure(err as NodeJS.ErrnoException, host), { cause: err });
  }
}

function startRequest(url: URL, init: OutboundRequest, policy: OutboundPolicy, signal: AbortSignal) {
  const options: https.RequestOptions = {
    hostname: bareHost(url.hostname),
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: init.method,
    headers: outgoingHeaders(init),
    lookup: checkedLookup(policy),
    signal,
    // A fresh connection each time, closed after the answer: no socket outlives its checks.
    agent: false,
    // Certificates are always checked (even under NODE_TLS_REJECT_UNAUTHORIZED=0); Node sends the
    // URL's host name as SNI and in Host, and verifies the certificate against it.
    rejectUnauthorized: true,
  };
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = url.protocol === 'https:' ? https.request(options, resolve) : http.request(options, resolve);
    request.on('error', reject);
    request.end(init.body);
  });
}

/** Node calls this for host names (never for IP literals, which checkOutboundUrl judged) and connects
 * only to the addresses handed back: the addresses checked are the ones connected to. */
function checkedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, policy).then(
      (addresses) => {
        // With autoSelectFamily (Node's default) it asks for all of them and tries each in turn.
        if (options.all === true) return callback(null, addresses);
        const [first] = addresses as [LookupAddress];
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** The caller's headers less Cookie (never sent) and Host (always the URL's), with the body's length. */
function outgoingHeaders(init: OutboundRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers)) {
    const lower = name.toLowerCase();
    if (lower !== 'cookie' && lower !== 'host' && lower !== 'content-length') headers[name] = value;
  }
  if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
  return headers;
}

/** The body up to maxBytes; past that the connection is closed and the rest is never read. */
async function readBounded(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal) {
  const stop = () => response.destroy(new Error('timed out'));
  signal.addEventListener('abort', stop, { once: true });
  const chunks: Buffer[] = [];
  let kept = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      const part = chunk.subarray(0, maxBytes - kept);
      chunks.push(part);
      kept += part.length;
      // Leaving the loop destroys the response.
      if (kept >= maxBytes) break;
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
  return Buffer.concat(chunks, kept);
}

function describeFailure(err: NodeJS.ErrnoException, host: string): string {
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return `the connection to ${host} was refused`;
  if (code === 'ECONNRESET') return `the connection to ${host} was closed before the answer was complete`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host ${host} does not resolve (${code})`;
  if (/CERT|SELF_SIGNED|TLS|SSL/.test(code)) return `the TLS certificate of ${host} was not accepted (${code})`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${host} cannot be reached (${code})`;
  return `the request to ${host} failed (${code || echo(err.message)})`;
}
