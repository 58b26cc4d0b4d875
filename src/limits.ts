// Per-client limiters, kept in memory: they protect the service, not the data, so a
// restart that forgets them costs nothing worth a write per request. Each answers with
// the seconds to wait, or 0 when the request may go ahead.

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** A token bucket per key: `capacity` requests, refilled continuously over one minute. */
export function createRequestLimiter(capacity: number) {
  const buckets = new Map<string, { tokens: number; updatedAt: number }>();
  const refillPerMs = capacity / MINUTE_MS;
  return {
    /** Takes one token for `key`; returns 0, or the seconds until a token is back. */
    take(key: string, now: number): number {
      if (capacity === 0) return 0;
      const bucket = buckets.get(key) ?? { tokens: capacity, updatedAt: now };
      bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.updatedAt) * refillPerMs);
      bucket.updatedAt = now;
      buckets.set(key, bucket);
      if (bucket.tokens < 1) return (1 - bucket.tokens) / refillPerMs / 1000;
      bucket.tokens -= 1;
      return 0;
    },
    /** Drops buckets that have refilled completely: they hold nothing a fresh one would not. */
    sweep(now: number): void {
      for (const [key, bucket] of buckets) {
        if (bucket.tokens + (now - bucket.updatedAt) * refillPerMs >= capacity) buckets.delete(key);
      }
    },
    get size() {
      return buckets.size;
    },
  };
}

/** A sliding hour per key that counts accepted events, at most `perHour` of them. */
export function createHourlyLimiter(perHour: number) {
  const events = new Map<string, number[]>();
  function recent(key: string, now: number): number[] {
    const list = (events.get(key) ?? []).filter((at) => at > now - HOUR_MS);
    if (list.length === 0) events.delete(key);
    else events.set(key, list);
    return list;
  }
  return {
    /** 0 when another event is allowed, else the seconds until the oldest leaves the hour. */
    wait(key: string, now: number): number {
      if (perHour === 0) return 0;
      const list = recent(key, now);
      return list.length < perHour ? 0 : ((list[0] as number) + HOUR_MS - now) / 1000;
    },
    record(key: string, now: number): void {
      if (perHour === 0) return;
      const list = recent(key, now);
      list.push(now);
      events.set(key, list);
    },
    sweep(now: number): void {
      for (const key of [...events.keys()]) recent(key, now);
    },
  };
}

/**
 * The enforced gap between accepted polls of one conversation, whichever door they came
 * through: the advertised interval minus a 5-second grace, so a client that waits
 * poll_after_seconds never sees a 429.
 */
export function createPollLimiter(intervalSeconds: number) {
  const gapMs = Math.max(0, intervalSeconds - 5) * 1000;
  const lastPoll = new Map<string, number>();
  return {
    /** 0 when a poll may be accepted now, else the seconds to wait. */
    wait(conversationId: string, now: number): number {
      const last = lastPoll.get(conversationId);
      return last !== undefined && now - last < gapMs ? (last + gapMs - now) / 1000 : 0;
    },
    record(conversationId: string, now: number): void {
      if (gapMs > 0) lastPoll.set(conversationId, now);
    },
    sweep(now: number): void {
      for (const [id, at] of lastPoll) if (now - at >= gapMs) lastPoll.delete(id);
    },
  };
}
