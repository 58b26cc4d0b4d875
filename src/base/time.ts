// UTC time helpers: timestamps, the shared daily maximum's day and credential expiry.

const DAY_MS = 86_400_000;

/** An instant as ISO 8601 text, e.g. 2026-11-21T23:05:00.000Z. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** The UTC date of an instant, as YYYY-MM-DD: the key of the daily count. */
export function utcDay(ms: number): string {
  return isoTime(ms).slice(0, 10);
}

/** Seconds from an instant to the next 00:00 UTC, when the daily count resets. */
export function secondsUntilNextUtcDay(ms: number): number {
  return (Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS - ms) / 1000;
}

/** An instant `days` whole days later, as ISO 8601 text. */
export function isoDaysLater(ms: number, days: number): string {
  return isoTime(ms + days * DAY_MS);
}
