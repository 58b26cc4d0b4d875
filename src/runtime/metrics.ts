// GET /metrics in the Prometheus text format, for an owner who scrapes the service: off
// unless METRICS_TOKEN is set, and then only with `Authorization: Bearer <METRICS_TOKEN>`.
// The counters are counted from the log entries the service writes anyway (one per request,
// one per delivery attempt), so nothing else in a request's path knows of them; the gauges
// are read when scraped. They hold no message text, credential or address.

import { createHash, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import type { LogEntry } from '../base/log.ts';
import type { App } from './app.ts';
import { bearerCredential } from '../http/guards.ts';
import type { Reply, RestContext } from '../http/request-handler.ts';
import { refuse } from '../refusals/refusal.ts';
import { utcDay } from '../base/time.ts';

/** Distinct label sets kept per counter, at most: routes and reasons are few, but a bound is stated. */
const MAX_SERIES = 500;

type Counter = Map<string, number>;

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

export type Metrics = ReturnType<typeof createMetrics>;

/** GET /metrics */
export function metricsPage({ app, req }: RestContext): Reply {
  const expected = app.config.metricsToken;
  if (expected === null) throw refuse('noRoute', 'GET'); // off: as if there were no such path
  // Digests compared, not the texts: equal lengths whatever was sent, and no time that depends on it.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const given = bearerCredential(req.rawHeaders) ?? '';
  if (!timingSafeEqual(digest(given), digest(expected))) throw refuse('metricsCredential');
  return { status: 200, body: render(app), contentType: 'text/plain; version=0.0.4; charset=utf-8' };
}

function render(app: App): string {
  const { counters } = app.metrics;
  const day = utcDay(app.now());
  const gauges: [string, string, number][] = [
    ['messages_today', 'Messages stored this UTC day, all senders and the owner.', app.store.usage.count(day, 'all')],
    ['daily_message_maximum', 'The shared daily maximum (0: unlimited).', app.quotas.dailyMaximum],
    ['waiting_polls', 'Polls held until the owner writes.', app.waits.size],
    [
      'outbox_pending_events',
      'Webhook and push events not yet delivered or given up.',
      app.store.outbox.pendingTotal(),
    ],
    ['database_bytes', 'The database file with its WAL, in bytes.', databaseBytes(app.config.dbPath)],
  ];
  const lines: string[] = [];
  const counter = (name: string, help: string, values: Counter, labelsOf: (key: string) => string) => {
    lines.push(`# HELP agent_contact_${name} ${help}`, `# TYPE agent_contact_${name} counter`);
    for (const [key, value] of values) lines.push(`agent_contact_${name}{${labelsOf(key)}} ${value}`);
  };
  const requestLabels = (key: string) => {
    const [route, status] = key.split(' ') as [string, string]; // a route pattern holds no space
    return labels({ route, status });
  };
  counter('requests_total', 'Requests answered, by route and status.', counters.requests, requestLabels);
  const refusalsHelp = 'Refusals, by the reason in the refusal catalogue.';
  counter('refusals_total', refusalsHelp, counters.refusals, (reason) => labels({ reason }));
  const deliveriesHelp = 'Webhook and push delivery attempts, by outcome.';
  counter('deliveries_total', deliveriesHelp, counters.deliveries, (outcome) => labels({ outcome }));
  for (const [name, help, value] of gauges) {
    lines.push(
      `# HELP agent_contact_${name} ${help}`,
      `# TYPE agent_contact_${name} gauge`,
      `agent_contact_${name} ${value}`,
    );
  }
  lines.push(
    '# HELP agent_contact_conversations Conversations, by status.',
    '# TYPE agent_contact_conversations gauge',
  );
  for (const [status, count] of Object.entries(app.store.conversationCounts())) {
    lines.push(`agent_contact_conversations{status="${status}"} ${count}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A label set in the text format, values escaped as it says. */
function labels(values: Record<string, string>): string {
  const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  return Object.entries(values)
    .map(([name, value]) => `${name}="${escape(value)}"`)
    .join(',');
}

function databaseBytes(dbPath: string): number {
  if (dbPath === ':memory:') return 0;
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(dbPath + suffix).size;
    } catch {
      // no WAL yet
    }
  }
  return total;
}
