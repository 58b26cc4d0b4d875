// GET /metrics in the Prometheus text format, for an owner who scrapes the service: off
// unless METRICS_TOKEN is set, and then only with `Authorization: Bearer <METRICS_TOKEN>`.
// The counters come from runtime/metrics.ts; the gauges are read when scraped. Nothing here
// holds message text, a credential or an address.

import { createHash, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { utcDay } from '../../base/time.ts';
import type { Reply } from '../../http/context.ts';
import type { RequestContext } from '../context.ts';
import { refuse } from '../../refusals/refusal.ts';
import { bearerCredential } from '../../rules/access.ts';
import type { App } from '../../runtime/app.ts';
import type { Counter } from '../../runtime/metrics.ts';

/** GET /metrics */
export function metricsPage({ app, req }: RequestContext): Reply {
  const expected = app.config.metricsToken;
  if (expected === null) throw refuse('no_route', 'GET'); // off: as if there were no such path
  // Digests compared, not the texts: equal lengths whatever was sent, and no time that depends on it.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const given = bearerCredential(req.rawHeaders) ?? '';
  if (!timingSafeEqual(digest(given), digest(expected))) throw refuse('metrics_credential');
  return { status: 200, body: render(app), contentType: 'text/plain; version=0.0.4; charset=utf-8' };
}

function render(app: App): string {
  const { counters } = app.metrics;
  const day = utcDay(app.now());
  const gauges: [string, string, number][] = [
    [
      'messages_today',
      'Messages stored this UTC day, all senders and the owner.',
      app.store.quotaCounts.count(day, 'all'),
    ],
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
