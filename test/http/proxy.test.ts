// What a reverse proxy changes (src/http/proxy.ts): the client's address behind a proxy, the one line
// that says TRUST_PROXY was forgotten (with it off, every client behind a proxy is the proxy's address
// and shares one address's limits, which until this line showed only as a 429 for everyone), and the
// one line that says PUBLIC_BASE_URL does not name the host agents come for.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { request, startTestService } from '../helpers.ts';

const HEALTH = '/api/v1/health';
// Anyone may write the header: its value must never reach the log.
const FORWARDED = '6.6.6.6, forged-marker-7c1f';

const warningsOf = (logs: Record<string, unknown>[]) => logs.filter((entry) => entry.level === 'warn');

test('with TRUST_PROXY off, the first request with X-Forwarded-For is logged once, naming the setting', async (t) => {
  const service = await startTestService(t);
  assert.equal((await request(service.url, 'GET', HEALTH)).status, 200);
  assert.deepEqual(warningsOf(service.logs), [], 'a request without the header says nothing');

  for (const hop of [FORWARDED, '7.7.7.7', '8.8.8.8']) {
    await request(service.url, 'GET', HEALTH, { headers: { 'x-forwarded-for': hop } });
  }
  const warnings = warningsOf(service.logs);
  assert.equal(warnings.length, 1, 'once a run');
  const warning = String(warnings[0]?.warning);
  assert.match(warning, /^A request from (::ffff:)?127\.0\.0\.1 carried X-Forwarded-For, but TRUST_PROXY is off: /);
  assert.match(warning, /shares one address's limits .*set TRUST_PROXY=1 to count each client by the last X-/);
  const logged = JSON.stringify(service.logs);
  assert.ok(!logged.includes('forged-marker') && !logged.includes('6.6.6.6'), 'the header is never logged');
  const clients = service.logs.filter((entry) => entry.route === HEALTH).map((entry) => entry.client);
  assert.ok(clients.every((client) => /127\.0\.0\.1$/.test(String(client))), 'each counted as the proxy');
});

test('with TRUST_PROXY on, X-Forwarded-For is the client, and nothing is said of it', async (t) => {
  const service = await startTestService(t, { env: { TRUST_PROXY: '1' } });
  await request(service.url, 'GET', HEALTH, { headers: { 'x-forwarded-for': '10.0.0.1, 6.6.6.6' } });
  assert.deepEqual(warningsOf(service.logs), []);
  assert.equal(service.logs.find((entry) => entry.route === HEALTH)?.client, '6.6.6.6');
});

test('the first request for a host PUBLIC_BASE_URL does not name is logged once, with the fix', async (t) => {
  const service = await startTestService(t, { env: { PUBLIC_BASE_URL: 'https://contact.test' } });
  const asked = (host: string) =>
    new Promise<void>((resolve) => {
      http.get(`${service.url}/api/v1/health`, { headers: { host } }, (res) => res.resume().on('end', resolve));
    });
  await asked('contact.test');
  assert.ok(!service.logs.some((entry) => entry.level === 'warn'), 'its own host is fine');
  await asked('proxy.internal:8080');
  await asked('other.internal');
  const warnings = service.logs.filter((entry) => entry.level === 'warn');
  assert.equal(warnings.length, 1, 'once');
  const named = /host proxy\.internal:8080, which PUBLIC_BASE_URL \(https:\/\/contact\.test/;
  assert.match(String(warnings[0]?.warning), named);
});
