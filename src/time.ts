// UTC calendar helpers for the shared daily maximum and credential expiry.

const DAY_MS = 86_400_000;

/** The UTC date of an instant, as YYYY-MM-DD: the key of the daily count. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Seconds from an instant to the next 00:00 UTC, when the daily count resets. */
export function secondsUntilNextUtcDay(ms: number): number {
  return (Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS - ms) / 1000;
}

/** An instant `days` whole days later, as an ISO 8601 string. */
export function isoDaysLater(ms: number, days: number): string {
  return new Date(ms + days * DAY_MS).toISOString();
}
