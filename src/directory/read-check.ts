// The live read check of the directory (`npm run -s owner -- listings check`): each listing's
// url, docs_url and entry_url are read with GET (a docs_url that moved to another page, or any
// address that moved to another host, is a finding), and an example_request that is a keyless GET
// is run and its answer held to what the listing promises (a 2xx; JSON that parses where JSON is
// asked for). Polite by design: a User-Agent naming this service and its owner's contact page, a
// few hosts at once and one request at a time per host, a time-out on each request, a short
// Retry-After waited out once, never a write, a cookie or a credential. Every request passes the
// outbound guard (outbound/guard.ts), like webhooks: no listing file can make it reach a private address.

import type { IncomingHttpHeaders } from 'node:http';
import type { Listing } from './listings.ts';
import { OutboundRefusal, sendOutbound, type OutboundPolicy } from '../outbound/guard.ts';

// A query parameter that carries a key: api_key, apikey, key, token, access_token, auth, secret, …
const KEY_LIKE_NAME =
  /^(api[_-]?key|key|token|auth|authorization|secret|password|session|signature|sig)$|[_-](key|token|secret)$/i;

const PAGE_BODY_BYTES = 64 * 1024; // a page is only asked whether it answers; its body is not used
const EXAMPLE_BODY_BYTES = 1024 * 1024; // enough to parse a typical example's JSON whole

export interface CheckOptions {
  readonly policy: OutboundPolicy;
  readonly userAgent: string;
  readonly timeoutMs: number;
  /** Hosts read at once; each host gets one request at a time. */
  readonly hostsAtOnce: number;
  /** A 429 or 503 whose Retry-After is at most this long is waited out, once; a longer one fails the read. */
  readonly maxRetryAfterMs: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export type ReadTarget = 'url' | 'docs_url' | 'entry_url' | 'example_request';

/** One read: what was read, and what came of it in words. */
export interface Read {
  readonly slug: string;
  readonly what: ReadTarget;
  readonly target: string;
  readonly ok: boolean;
  readonly outcome: string;
  /** whether an HTTP answer came back at all (not: no address, no connection, a time-out, a refusal) */
  readonly answered: boolean;
}

/** A listing's check: passed when every read answered as promised. */
export interface ListingCheck {
  readonly slug: string;
  readonly passed: boolean;
  /** Whether the example request was run and answered as promised (null: no keyless GET example). */
  readonly exampleRead: boolean | null;
  readonly reads: readonly Read[];
}

/**
 * The example's URL when example_request is one plain GET of an absolute URL with no key in it:
 * "GET https://…" and nothing else. A template ({id}), a second step, a header to add, a query
 * parameter named like a key or a placeholder value means a key or a human is needed: not run.
 */
export function keylessGet(example: unknown): string | null {
  if (typeof example !== 'string') return null;
  const match = /^GET (https?:\/\/\S+)$/.exec(example.trim());
  const url = match ? URL.parse(match[1] as string) : null;
  if (!url || /[{}<>]/.test(match?.[1] ?? '')) return null; // a {template} or a <placeholder>
  for (const [name, value] of url.searchParams) {
    if (KEY_LIKE_NAME.test(name) || /YOUR_|_KEY$|^<|>$/i.test(value)) return null;
  }
  return url.href;
}

/** Checks the listings, hosts in parallel and each host's reads in turn; results in the listings' order. */
export async function checkListings(listings: readonly Listing[], options: CheckOptions): Promise<ListingCheck[]> {
  const byHost = new Map<string, PlannedRead[]>();
  for (const planned of listings.flatMap(plannedReads)) {
    const host = URL.parse(planned.target)?.host.toLowerCase() ?? planned.target;
    byHost.set(host, [...(byHost.get(host) ?? []), planned]);
  }
  const queues = [...byHost.values()];
  const done: Read[] = [];
  const worker = async () => {
    for (let queue = queues.shift(); queue !== undefined; queue = queues.shift()) {
      for (const planned of queue) done.push(await readOnce(planned, options));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.hostsAtOnce) }, worker));
  return listings.map((listing) => {
    const reads = done.filter((read) => read.slug === listing.slug);
    const example = reads.find((read) => read.what === 'example_request');
    return {
      slug: listing.slug as string,
      passed: reads.every((read) => read.ok),
      exampleRead: example ? example.ok : null,
      reads: ORDER.flatMap((what) => reads.filter((read) => read.what === what)),
    };
  });
}

const ORDER: readonly ReadTarget[] = ['url', 'docs_url', 'entry_url', 'example_request'];

interface PlannedRead {
  readonly slug: string;
  readonly what: ReadTarget;
  readonly target: string;
}

function plannedReads(listing: Listing): PlannedRead[] {
  const slug = listing.slug as string;
  const pages = (['url', 'docs_url', 'entry_url'] as const)
    .filter((what) => typeof listing[what] === 'string' && listing[what] !== '')
    .map((what) => ({ slug, what, target: listing[what] as string }));
  const example = keylessGet(listing.example_request);
  return example ? [...pages, { slug, what: 'example_request', target: example }] : pages;
}

/** One GET, with a short Retry-After waited out once; never throws. */
async function readOnce(planned: PlannedRead, options: CheckOptions): Promise<Read> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const result = (ok: boolean, outcome: string): Read => ({ ...planned, ok, outcome, answered: true });
  const example = planned.what === 'example_request';
  const request = {
    method: 'GET',
    headers: { 'user-agent': options.userAgent, accept: example ? 'application/json, */*;q=0.8' : '*/*' },
    timeoutMs: options.timeoutMs,
    maxBodyBytes: example ? EXAMPLE_BODY_BYTES : PAGE_BODY_BYTES,
  } as const;
  try {
    for (let attempt = 1; ; attempt++) {
      const answer = await sendOutbound(new URL(planned.target), request, options.policy);
      if (answer.status !== 429 && answer.status !== 503) return judged(planned, answer, result);
      const waitMs = retryAfterMs(answer.headers['retry-after']);
      if (attempt > 1 || waitMs === null || waitMs > options.maxRetryAfterMs) {
        const later = waitMs === null ? '' : `; it asks to come back in ${Math.ceil(waitMs / 1000)} s`;
        return result(false, `answered ${answer.status}${later}`);
      }
      await sleep(waitMs);
    }
  } catch (err) {
    const refused = err instanceof OutboundRefusal;
    const outcome = refused ? `not read: ${err.message}` : (err as Error).message;
    return { ...planned, ok: false, outcome, answered: false };
  }
}

/**
 * A page answers with 2xx, or a redirect to the same page (see movedElsewhere); the example with
 * 2xx, and JSON that parses where JSON is asked for.
 */
function judged(
  planned: PlannedRead,
  answer: { status: number; headers: IncomingHttpHeaders; body: Buffer },
  result: (ok: boolean, outcome: string) => Read,
): Read {
  const { status, headers, body } = answer;
  if (planned.what !== 'example_request') {
    if (status >= 200 && status < 300) return result(true, `answered ${status}`);
    if (status >= 300 && status < 400) {
      const moved = `answered ${status}, moved to ${shortUrl(headers.location)}`;
      if (!movedElsewhere(planned, headers.location)) return result(true, moved);
      return result(false, `${moved}: update ${planned.what}`);
    }
    return result(false, `answered ${status}`);
  }
  if (status < 200 || status >= 300) return result(false, `answered ${status}`);
  const saysJson = /\bjson\b/i.test(headers['content-type'] ?? '');
  if (!saysJson && !asksForJson(planned.target)) return result(true, `answered ${status}`);
  if (body.length >= EXAMPLE_BODY_BYTES) return result(true, `answered ${status}, JSON longer than 1 MiB, not parsed`);
  try {
    JSON.parse(body.toString('utf8'));
    return result(true, `answered ${status} with JSON`);
  } catch {
    return result(false, `answered ${status}, but the body is not the JSON it promises`);
  }
}

/**
 * Whether a redirect leaves the page a listing names: for docs_url, any other page (the notes
 * quote that page, so a docs address that moved is a finding); for url and entry_url, another
 * host (a home page may well redirect to its /en/). Going to https, adding or dropping "www."
 * or a trailing slash stays on the same page. A missing or unreadable Location has moved.
 */
export function movedElsewhere(planned: { what: ReadTarget; target: string }, location: string | undefined): boolean {
  const from = URL.parse(planned.target);
  const to = location === undefined || from === null ? null : URL.parse(location, from.href);
  if (from === null || to === null) return true;
  const host = (url: URL) => url.host.toLowerCase().replace(/^www\./, '');
  if (host(from) !== host(to) || (from.protocol !== to.protocol && to.protocol !== 'https:')) return true;
  if (planned.what !== 'docs_url') return false;
  const page = (url: URL) => `${url.pathname.replace(/\/+$/, '')}${url.search}`;
  return page(from) !== page(to);
}

/** A URL that asks for JSON: a .json path, or a format-like parameter set to json, jsonv2 or geojson. */
export function asksForJson(target: string): boolean {
  const url = URL.parse(target);
  if (!url) return false;
  if (/\.(geo)?json$/i.test(url.pathname)) return true;
  return [...url.searchParams.values()].some((value) => /^(geo)?json(v2)?$/i.test(value));
}

/** Retry-After in milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
function retryAfterMs(value: string | undefined): number | null {
  if (value === undefined) return null;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function shortUrl(location: string | undefined): string {
  if (location === undefined) return '(no Location)';
  return location.length > 100 ? `${location.slice(0, 99)}…` : location;
}
