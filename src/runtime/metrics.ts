// The counters behind GET /metrics (doors/rest/metrics.ts): counted from the log entries the
// service writes anyway (one per request, one per delivery attempt), so nothing else in a
// request's path knows of them, and only when METRICS_TOKEN turns GET /metrics on. They hold no
// message text, credential or address.

import type { Log, LogEntry } from '../base/log.ts';

/** Distinct label sets kept per counter, at most: routes and reasons are few, but a bound is stated. */
const MAX_SERIES = 500;

/** Counts by label set, written out as labels only when scraped. */
export type Counter = Map<string, number>;

export function createMetrics() {
  const counters = { requests: new Map() as Counter, refusals: new Map() as Counter, deliveries: new Map() as Counter };
  const add = (counter: Counter, labels: string) => {
    if (!counter.has(labels) && counter.size >= MAX_SERIES) return;
    counter.set(labels, (counter.get(labels) ?? 0) + 1);
  };
  return {
    /** Counts what a log entry tells: a request and its refusal, or a delivery attempt. */
    observe(entry: LogEntry): void {
      // Counted by plain keys; label sets are written out only when scraped.
      if (typeof entry.status === 'number' || entry.status === null) {
        add(counters.requests, `${entry.route ?? 'none'} ${entry.status ?? 'aborted'}`);
      }
      if (typeof entry.refusal === 'string') add(counters.refusals, entry.refusal);
      if (typeof entry.delivery === 'string') add(counters.deliveries, entry.delivery);
    },
    counters,
  };
}

/** The log every part writes to, counted by the metrics on its way. */
export function meteredLog(metrics: ReturnType<typeof createMetrics>, write: Log): Log {
  return (entry) => {
    metrics.observe(entry);
    write(entry);
  };
}
