// UTC time helpers: timestamps, the shared daily maximum and credential expiry.

const DAY_MS = 86_400_000;

// Formatting an instant as ISO text costs about a microsecond, and a busy server asks for
// the same millisecond many times over (a log line per request, message timestamps).
let lastMs = NaN;
let lastIso = '';

/** An instant as ISO 8601 text, e.g. 2026-11-21T23:05:00.000Z. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** The UTC date of an instant, as YYYY-MM-DD: the key of the daily count. */
export function utcDay(ms: number): string {
  return isoTime(ms).slice(0, 10);
}

/** Seconds from an instant to the next 00:00 UTC, when the daily count resets. */
export function secondsUntilNextUtcDay(ms: number): number {
  return (Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS - ms) / 1000;
}

/** An instant `days` whole days later, as an ISO 8601 string. */
export function isoDaysLater(ms: number, days: number): string {
  return new Date(ms + days * DAY_MS).toISOString();
}
