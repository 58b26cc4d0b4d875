// The one guard that every outbound request passes (signed webhooks, A2A push notifications, listing
// read-checks). The URL comes from an untrusted agent, so the sender must not become a way into the
// owner's network (after stripe/smokescreen): https only, no user:pass@, connections only to addresses
// checked public. Hosts in OUTBOUND_ALLOWED_HOSTS may also use http and be private (policy.ts). Any port of
// a public host, as in smokescreen: the guard protects the owner's network, not other hosts' ports.
// No redirect is followed, one time-out covers lookup to last byte, the body is bounded, no cookie sent.
// A refusal (OutboundRefusal) cannot pass on a retry; a plain Error (time-out, refused, TLS, DNS) may.

import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addAbortSignal } from 'node:stream';
import { classifyAddress, PUBLIC } from '../base/addresses.ts';
import { refuse } from '../refusals/refusal.ts';
import { lookupAddresses, OutboundBusy } from './lookups.ts';
import { bareHost, isAllowedHost, type OutboundPolicy } from './policy.ts';

export type { OutboundPolicy };

/** Rules an agent meets when it tries a receiver on its own machine or network: their refusal says how to test. */
const NOT_LOCAL = new Set(['http', 'address', 'resolve']);

/** A URL that breaks one of the rules, with a message an agent can act on. */
export class OutboundRefusal extends Error {
  readonly rule: 'url' | 'length' | 'scheme' | 'http' | 'userinfo' | 'address' | 'resolve';
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

/** The static rules (string, length, https or an allowed host, no user:pass@, IP literal); the parsed URL. */
export function checkOutboundUrl(raw: unknown, policy: OutboundPolicy): URL {
  if (typeof raw !== 'string') throw new OutboundRefusal('url', 'the URL must be a string');
  if (raw.length > MAX_URL_LENGTH) {
    throw new OutboundRefusal('length', `the URL must be at most ${MAX_URL_LENGTH} characters (it has ${raw.length})`);
  }
  const url = URL.parse(raw);
  if (url === null) throw new OutboundRefusal('url', 'the URL is not a valid absolute URL (https://host/path)');
  const allowed = isAllowedHost(url, policy);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) {
    const http = url.protocol === 'http:';
    const only = http ? '; http is only for hosts the owner of this service allows' : '';
    const message = `the URL must use https, not ${echo(url.protocol.slice(0, -1))}${only}`;
    throw new OutboundRefusal(http ? 'http' : 'scheme', message);
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
  const allowed = isAllowedHost(url, policy);
  await resolveChecked(bareHost(url.hostname), allowed, policy).catch((err: NodeJS.ErrnoException) => {
    if (err instanceof OutboundRefusal || err instanceof OutboundBusy) throw err;
    throw new OutboundRefusal('resolve', unresolved(url));
  });
}

/** A URL an agent registers, held to the static rules only (no lookup): the URL, or the refusal naming the rule. */
export function checkStaticUrl(raw: string, policy: OutboundPolicy): URL {
  try {
    return checkOutboundUrl(raw, policy);
  } catch (err) {
    if (err instanceof OutboundRefusal) throw refuse('url_refused', err.message, NOT_LOCAL.has(err.rule));
    throw err;
  }
}

/**
 * A URL an agent registers to be told at (a webhook, an A2A push notification config): the static
 * rules, then where its name resolves. The URL as it will be called, or the refusal naming the rule.
 */
export async function checkRegisteredUrl(raw: string, policy: OutboundPolicy): Promise<string> {
  const url = checkStaticUrl(raw, policy);
  try {
    await checkResolvesPublic(url, policy);
    return url.href;
  } catch (err) {
    if (err instanceof OutboundRefusal) throw refuse('url_refused', err.message, NOT_LOCAL.has(err.rule));
    if (err instanceof OutboundBusy) throw refuse('outbound_busy');
    throw err;
  }
}

/** Every address of a host, all public or the host allowed: one address not public refuses the name. */
async function resolveChecked(host: string, allowed: boolean, policy: OutboundPolicy): Promise<LookupAddress[]> {
  if (isIP(host) !== 0) {
    if (!allowed) refuseUnlessPublic(host, `the URL's host ${echo(host)} is`);
    return [{ address: host, family: isIP(host) }];
  }
  const found = await lookupAddresses(host, policy);
  // Copies, so that what is connected to is exactly what was checked.
  const addresses = found.map(({ address }) => ({ address: String(address), family: isIP(String(address)) }));
  if (addresses.length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
  if (!allowed && addresses.some(({ address }) => classifyAddress(address) !== PUBLIC)) {
    throw new OutboundRefusal('address', notPublicName(host));
  }
  return addresses;
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
    if (err instanceof OutboundRefusal || err instanceof OutboundBusy) throw err;
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
    lookup: checkedLookup(policy, isAllowedHost(url, policy)), // the addresses checked are the ones connected to
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
function checkedLookup(policy: OutboundPolicy, allowed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, allowed, policy).then(
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
