// GET /metrics: off by default, behind its own token, in the Prometheus text format as a
// parser reads it, counting requests, refusals by reason and deliveries, never a secret.

import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error: the parser ships no types
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { assertRefused, newKey, openConversation, request, startTestService } from '../helpers.ts';

const TOKEN = 'm'.repeat(40);

interface Family {
  name: string;
  type: string;
  metrics: { value: string; labels?: Record<string, string> }[];
}

test('metrics are off unless METRICS_TOKEN is set', async (t) => {
  const service = await startTestService(t);
  assertRefused(await request(service.url, 'GET', '/metrics'), 404, /There is no GET route at this path/);
  assertRefused(await request(service.url, 'GET', '/metrics', { token: TOKEN }), 404, /There is no GET route/);
});

test('metrics count requests, refusals by reason and the day, in the Prometheus text format', async (t) => {
  const service = await startTestService(t, { env: { METRICS_TOKEN: TOKEN, DAILY_CONVERSATION_SHARE: '2' } });
  const { id, token } = await openConversation(service.url);
  const follow = () =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: 'm' },
    });
  assert.equal((await follow()).status, 201);
  assert.equal((await follow()).status, 429); // the conversation's share of 2
  await request(service.url, 'GET', '/api/v1/conversations/' + id, { token: 'f'.repeat(64) }); // 401
  assertRefused(await request(service.url, 'GET', '/metrics', { token: 'wrong' }), 401, /METRICS_TOKEN/);
  // As long as the token, but one byte is not ASCII: its UTF-8 is longer; still a 401, never a 500.
  assertRefused(await request(service.url, 'GET', '/metrics', { token: `${TOKEN.slice(1)}é` }), 401, /METRICS_TOKEN/);
  const scraped = await request(service.url, 'GET', '/metrics', { token: TOKEN });
  assert.equal(scraped.status, 200);
  assert.match(scraped.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.equal(scraped.headers.get('cache-control'), 'no-store');
  const families = new Map(
    (parsePrometheusTextFormat(scraped.text) as Family[]).map((family) => [family.name, family]),
  );
  const value = (name: string, labels: Record<string, string> = {}) =>
    Number(
      families
        .get(name)
        ?.metrics.find((metric) => Object.entries(labels).every(([key, v]) => metric.labels?.[key] === v))?.value,
    );
  assert.equal(families.get('agent_contact_requests_total')?.type, 'COUNTER');
  assert.equal(value('agent_contact_requests_total', { route: '/api/v1/conversations', status: '201' }), 1);
  assert.equal(
    value('agent_contact_requests_total', { route: '/api/v1/conversations/:id/messages', status: '429' }),
    1,
  );
  assert.equal(value('agent_contact_refusals_total', { reason: 'conversation_share' }), 1);
  assert.equal(value('agent_contact_refusals_total', { reason: 'unknown_credential' }), 1);
  assert.equal(value('agent_contact_refusals_total', { reason: 'metrics_credential' }), 2);
  assert.equal(value('agent_contact_messages_today'), 2);
  assert.equal(value('agent_contact_daily_message_maximum'), 500);
  assert.equal(value('agent_contact_conversations', { status: 'open' }), 1);
  assert.ok(value('agent_contact_database_bytes') > 4096);
  assert.equal(value('agent_contact_waiting_polls'), 0);
  assert.ok(!scraped.text.includes(token) && !scraped.text.includes(TOKEN), 'no credential in the metrics');
  assert.ok(!scraped.text.includes('127.0.0.1'), 'no client address');
});
