// Rates: what is counted per client in memory, never stored: the request rate per network (a
// token bucket) and the poll clock per conversation, and which network an address counts as for
// every per-address limit, here and in quotas.ts (quotas, stored per UTC day). They protect the
// service, not the data: a restart that forgets them costs one extra accepted request, against a
// disk write per request. Each judges and records in one synchronous step (`take`), answering with
// the seconds to wait, or 0 when the request may go ahead, and each holds at most a stated number
// of entries, whatever clients send.

import { parseIPv6 } from '../base/addresses.ts';

const MINUTE_MS = 60_000;
const MAPPED_IPV4 = 0xffffn; // ::ffff:a.b.c.d, the top 96 bits of an IPv4-mapped address

/**
 * The network an address counts as, for every per-address limit (the request rate, openings per hour,
 * the address's share of the day): an IPv4 address itself, an IPv6 address its /64, an IPv4-mapped one
 * its IPv4 address. An IPv6 client usually holds a whole /64, and a new address in it costs nothing:
 * counted one by one, one client could take every share.
 */
export function networkOf(address: string): string {
  if (!address.includes(':')) return address; // IPv4, or what a proxy sent: no IPv6 address lacks a colon
  const ipv6 = parseIPv6(address);
  if (ipv6 === null) return address; // not an address: what a proxy sent, as it is
  if (ipv6 >> 32n === MAPPED_IPV4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((ipv6 >> shift) & 0xffn)).join('.');
  }
  const groups = [48n, 32n, 16n, 0n].map((shift) => (((ipv6 >> 64n) >> shift) & 0xffffn).toString(16));
  return `${groups.join(':')}::/64`;
}

/**
 * Entries each rate holds at most: about 100 bytes each, so 100,000 cost about 10 MiB. Past
 * this, idle entries are swept, and if none is idle the oldest is forgotten (that client is
 * then treated as new: a flood from more addresses than this is a matter for a firewall).
 */
export const MAX_RATE_ENTRIES = 100_000;

/** Keeps a Map under `max` entries: sweep what `idle` says is idle, else drop the oldest. */
function makeRoom<V>(entries: Map<string, V>, max: number, idle: (value: V) => boolean): void {
  if (entries.size < max) return;
  for (const [key, value] of entries) if (idle(value)) entries.delete(key);
  if (entries.size >= max) entries.delete(entries.keys().next().value as string);
}

/** A token bucket per network (networkOf): `capacity` requests, refilled continuously over one minute. */
export function createRequestBuckets(capacity: number, maxEntries = MAX_RATE_ENTRIES) {
  const buckets = new Map<string, { tokens: number; updatedAt: number }>();
  const refillPerMs = capacity / MINUTE_MS;
  const refilled = (bucket: { tokens: number; updatedAt: number }, now: number) =>
    Math.min(capacity, bucket.tokens + (now - bucket.updatedAt) * refillPerMs);
  return {
    /** Takes one token for the network of `address`; returns 0, or the seconds until a token is back. */
    take(address: string, now: number): number {
      if (capacity === 0) return 0;
      const key = networkOf(address);
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        makeRoom(buckets, maxEntries, (b) => refilled(b, now) >= capacity);
        bucket = { tokens: capacity, updatedAt: now };
        buckets.set(key, bucket);
      }
      bucket.tokens = refilled(bucket, now);
      bucket.updatedAt = now;
      if (bucket.tokens < 1) return (1 - bucket.tokens) / refillPerMs / 1000;
      bucket.tokens -= 1;
      return 0;
    },
    /** Drops buckets that have refilled completely: they hold nothing a fresh one would not. */
    sweep(now: number): void {
      for (const [key, bucket] of buckets) if (refilled(bucket, now) >= capacity) buckets.delete(key);
    },
    get size() {
      return buckets.size;
    },
  };
}

export type PollClock = ReturnType<typeof createPollClock>;

interface PollEntry {
  /** when the next poll may be accepted, unless it has news to tell */
  nextAt: number;
  /** when the poll being held is answered at the latest; 0 when none is held */
  waitEndsAt: number;
  /** the conversation's news as the last answer told it (PollRequest.news) */
  told: string;
}

/** A poll as the clock judges it. */
export interface PollRequest {
  /** the seconds it asked to wait for the owner (0: a plain poll) */
  readonly waitSeconds: number;
  /** whether it is held that long at most; else it is answered at once */
  readonly held: boolean;
  /** whether it is answered at once with something the client asked after (an owner message, a close) */
  readonly answersWithNews: boolean;
  /** the conversation's news now: what the owner wrote, closed or reopened (the newest owner seq, a close) */
  readonly news: string;
}

const PLAIN_POLL: PollRequest = { waitSeconds: 0, held: false, answersWithNews: false, news: '' };

/**
 * The enforced gap between accepted polls of one conversation, whichever door they came
 * through: the advertised interval minus a 5-second grace, so a client that waits
 * poll_after_seconds never sees a 429. A poll that has news to tell (the owner wrote, closed or
 * reopened since the last answer of this conversation) is never refused, so an agent woken by a
 * webhook or a push reads the reply at once; one with nothing new keeps the gap. A poll that asks
 * to wait S seconds uses S seconds of the gap, whether it is held or answered at once with news
 * not told before, so a client that chains waits of the whole gap is never refused; one held
 * poll per conversation at a time; a wait that ends because the owner wrote restarts the clock.
 * With no gap (an interval of 5 s or less, or 0: not enforced) no poll is ever refused.
 */
export function createPollClock(intervalSeconds: number, maxEntries = MAX_RATE_ENTRIES) {
  const gapMs = Math.max(0, intervalSeconds - 5) * 1000;
  const polls = new Map<string, PollEntry>();
  // Kept one gap past its end, so that a poll asking again for news it was told stays a plain poll.
  const idle = (entry: PollEntry, now: number) => entry.waitEndsAt === 0 && now >= entry.nextAt + gapMs;
  return {
    /** The gap in seconds (the interval less its grace). */
    gapSeconds: gapMs / 1000,
    /** Judges a poll and, when it is accepted, records it: 0, or the seconds to wait before polling again. */
    take(conversationId: string, now: number, poll: PollRequest = PLAIN_POLL): number {
      if (gapMs === 0) return 0;
      const entry = polls.get(conversationId);
      if (entry !== undefined && entry.waitEndsAt > 0) return Math.max(1, (entry.waitEndsAt - now) / 1000);
      const untold = entry === undefined || poll.news !== entry.told;
      if (entry !== undefined && now < entry.nextAt && !untold) return (entry.nextAt - now) / 1000;
      if (entry === undefined) makeRoom(polls, maxEntries, (e) => idle(e, now));
      const waitMs = poll.held || (poll.answersWithNews && untold) ? poll.waitSeconds * 1000 : 0;
      polls.delete(conversationId); // re-inserted last: the Map's order stays oldest first
      polls.set(conversationId, {
        nextAt: now + Math.max(0, gapMs - waitMs),
        waitEndsAt: poll.held && waitMs > 0 ? now + waitMs : 0,
        told: poll.news,
      });
      return 0;
    },
    /**
     * The held poll was answered, telling `news`; when because the owner wrote, the next poll is
     * accepted at once.
     */
    release(conversationId: string, now: number, ownerWrote: boolean, news: string): void {
      const entry = polls.get(conversationId);
      if (entry === undefined) return;
      entry.waitEndsAt = 0;
      entry.told = news;
      if (ownerWrote) entry.nextAt = now;
    },
    sweep(now: number): void {
      for (const [id, entry] of polls) if (idle(entry, now)) polls.delete(id);
    },
    get size() {
      return polls.size;
    },
  };
}
