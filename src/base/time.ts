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

/** A span for a person, rounded in its largest unit: `45 s`, `12 min`, `3 h` (2 h 50 min too), `4 d`. */
export function spanWords(ms: number): string {
  const span = Math.max(0, ms);
  const [seconds, minutes, hours] = [1000, 60_000, 3_600_000].map((unit) => Math.round(span / unit)) as number[];
  if (seconds! < 60) return `${seconds} s`;
  if (minutes! < 60) return `${minutes} min`;
  if (hours! < 48) return `${hours} h`;
  return `${Math.round(span / 86_400_000)} d`;
}

/** A deadline as the owner reads it: `reply by 14:00 UTC (in 3 h)` (dated when not today), or `expired 2 h ago`. */
export function deadlineWords(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (at <= now) return `expired ${spanWords(now - at)} ago`;
  const day = utcDay(at) === utcDay(now) ? '' : `${utcDay(at)} `;
  return `reply by ${day}${isoTime(at).slice(11, 16)} UTC (in ${spanWords(at - now)})`;
}
