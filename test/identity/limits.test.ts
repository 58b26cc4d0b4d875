// Strangers and contacts, black-box on REST (rules/quotas.ts: sites, the two pools, contacts; the
// owner's trust through the script): identities of one site share one share however many there are;
// verified strangers together stop at the verified pool, unsigned senders at the unverified pool; the
// owner's contacts and the owner write while both floods run; no number of requests in flight passes
// any of them. With a maximum of 100: 10 kept for the owner, 90 for clients, pools of 30 each.
// Covers: src/rules/quotas.ts, src/rules/contacts.ts, src/identity/signed-request.ts, through REST.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newKey, request, runOwner, statuses, type ApiResponse, type TestService } from '../helpers.ts';
import { heldRequest } from '../held-request.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from './agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';
const from = (address: string) => ({ 'x-forwarded-for': address });
const LIMITS = { TRUST_PROXY: '1', DAILY_MESSAGE_LIMIT: '100', CREATE_LIMIT_PER_HOUR: '0', DAILY_ADDRESS_SHARE: '5' };

/** Opens a conversation from `address`, signed when `signing` is given. */
async function openFrom(service: TestService, address: string, signing?: Signing) {
  const signature = signing ? await signedHeaders(service, 'POST', OPEN, signing) : {};
  const headers = { ...from(address), ...signature };
  return request(service.url, 'POST', OPEN, { key: newKey(), json: { message: 'Hello.' }, headers });
}

/** Openings by each signer in turn (or unsigned, from a new address each) until the first refusal. */
async function openUntilRefused(service: TestService, signers: (Signing | undefined)[], prefix = '10.0.0') {
  for (let sent = 0; sent < 200; sent++) {
    const answer = await openFrom(service, `${prefix}.${sent}`, signers[sent % signers.length]);
    if (answer.status !== 201) return { stored: sent, refusal: answer };
  }
  throw new Error('no limit was met');
}

async function stats(service: TestService) {
  return JSON.parse((await runOwner(service.dbPath, ['stats', '--json'])).stdout);
}

test('identities on many subdomains of one site, and many JWKS URLs on one host, share one site share', async (t) => {
  const service = await startVerifyingService(t, { env: { ...LIMITS, DAILY_SITE_SHARE: '12' } });
  const port = new URL((await startKeyDirectory(t, [KEY])).origin).port;
  const identities = [
    `http://a.agent.test:${port}`,
    `http://b.agent.test:${port}`,
    `http://agent.test:${port}/agents/1/jwks`,
    `http://agent.test:${port}/agents/2/jwks`,
  ];
  const { stored, refusal } = await openUntilRefused(
    service,
    identities.map((agent) => ({ key: KEY, agent })),
  );
  assert.equal(stored, 12, 'four identities of agent.test together store one share');
  assert.equal(refusal.status, 429, refusal.text);
  assert.equal(refusal.body.error.reason, 'agent_share');
  assert.match(refusal.body.error.message, /verified agents of your site \(agent\.test, every identity under it/);
  const other = await startKeyDirectory(t, [KEY], 'site1.test');
  assert.equal((await openFrom(service, '10.9.0.1', { key: KEY, agent: other.origin })).status, 201, 'another site');
  assert.deepEqual((await stats(service)).busiest_site_today, { site: 'agent.test', count: 12, share: 12 });
});

test('verified strangers of many sites stop at the verified pool; contacts and the unsigned still write', async (t) => {
  const service = await startVerifyingService(t, { env: { ...LIMITS, DAILY_SITE_SHARE: '12' } });
  const sites = await Promise.all([1, 2, 3, 4].map((n) => startKeyDirectory(t, [KEY], `site${n}.test`)));
  const { stored, refusal } = await openUntilRefused(
    service,
    sites.map((site) => ({ key: KEY, agent: site.origin })),
  );
  assert.equal(stored, 30);
  assert.equal(refusal.body.error.reason, 'verified_pool', refusal.text);
  assert.match(refusal.body.error.message, /Verified agents the owner does not know yet have together stored their 30/);

  const known = await startKeyDirectory(t, [KEY], 'site5.test');
  const stranger = await openFrom(service, '10.1.0.1', { key: KEY, agent: known.origin });
  assert.equal(stranger.body.error.reason, 'verified_pool', 'a stranger until the owner says otherwise');
  const trusted = await runOwner(service.dbPath, ['trust', '--site', 'site5.test']);
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.match(trusted.stdout, /^Trusted the site site5\.test: every verified agent of it is a contact now/);
  for (let i = 0; i < 5; i++)
    assert.equal((await openFrom(service, `10.1.0.${i}`, { key: KEY, agent: known.origin })).status, 201);
  assert.equal((await openFrom(service, '10.2.0.1')).status, 201, 'unsigned senders have their own pool');
  const day = await stats(service);
  assert.deepEqual(day.verified_strangers_today, { count: 30, pool: 30 });
  assert.deepEqual(day.unverified_today, { count: 1, pool: 30 });
  assert.equal(day.messages_today, 36, 'a contact counts against the maximum only');
});

test('an unsigned flood stops at the unverified pool, from any number of addresses', async (t) => {
  const service = await startVerifyingService(t, { env: LIMITS });
  const { stored, refusal } = await openUntilRefused(service, [undefined]);
  assert.equal(stored, 30);
  assert.equal(refusal.body.error.reason, 'unverified_pool', refusal.text);
});

/** Requests held past every check made before the body, then their bodies sent together. */
test('signed openings count against the openings per hour of their address, as unsigned ones do', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1', CREATE_LIMIT_PER_HOUR: '3' } });
  const signing = { key: KEY, agent: directory.origin };
  for (let i = 0; i < 3; i++) assert.equal((await openFrom(service, '10.1.1.1', signing)).status, 201);
  const refused = await openFrom(service, '10.1.1.1', signing);
  assert.equal(refused.status, 429, refused.text);
  assert.equal(refused.body.error.reason, 'too_many_openings');
  assert.equal((await openFrom(service, '10.1.1.2', signing)).status, 201, 'another address opens');
});

async function inFlightTogether(requests: ReturnType<typeof heldRequest>[]) {
  await Promise.all(requests.map((held) => held.continued));
  return Promise.all(requests.map((held) => held.send()));
}

/** 30 signed openings held in flight, each signed anew (a signature authorizes one write). */
async function signedOpenings(service: TestService, signers: Signing[], prefix: string) {
  return Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      const headers = {
        ...from(`${prefix}.${i}`),
        ...(await signedHeaders(service, 'POST', OPEN, signers[i % signers.length]!)),
      };
      return heldRequest(service.url, OPEN, { key: newKey(), json: { message: `m${i}` }, headers });
    }),
  );
}

/** A signed read of each signer, so that its key directory is held before a race starts. */
async function warm(service: TestService, signers: Signing[]) {
  for (const signing of signers) {
    const headers = await signedHeaders(
      service,
      'GET',
      '/api/v1/conversations/00000000-0000-4000-8000-000000000000',
      signing,
    );
    const answer = await request(service.url, 'GET', '/api/v1/conversations/00000000-0000-4000-8000-000000000000', {
      headers,
    });
    assert.equal(answer.status, 401, `${signing.agent}: ${answer.text}`); // verified, then no credential
  }
}

test('30 signed openings of one site in flight at once store exactly its share', async (t) => {
  const service = await startVerifyingService(t, { env: { ...LIMITS, DAILY_SITE_SHARE: '7' } });
  const port = new URL((await startKeyDirectory(t, [KEY])).origin).port;
  const signers = ['a', 'b', 'c'].map((sub) => ({ key: KEY, agent: `http://${sub}.agent.test:${port}` }));
  await warm(service, signers);
  const answers = await inFlightTogether(await signedOpenings(service, signers, '10.3.0'));
  assert.deepEqual(statuses(answers), { 201: 7, 429: 23 });
  assert.ok(answers.filter((a) => a.status === 429).every((a) => a.body.error.reason === 'agent_share'));
});

test('30 signed openings of many sites in flight at once store exactly the verified pool', async (t) => {
  const service = await startVerifyingService(t, { env: { ...LIMITS, DAILY_VERIFIED_SHARE: '9' } });
  const sites = await Promise.all([1, 2, 3].map((n) => startKeyDirectory(t, [KEY], `site${n}.test`)));
  const signers = sites.map((site) => ({ key: KEY, agent: site.origin }));
  await warm(service, signers);
  const answers = await inFlightTogether(await signedOpenings(service, signers, '10.4.0'));
  assert.deepEqual(statuses(answers), { 201: 9, 429: 21 });
  assert.ok(answers.filter((a) => a.status === 429).every((a) => a.body.error.reason === 'verified_pool'));
});

test('while a signed and an unsigned flood run at once, a contact and the owner still write', async (t) => {
  const service = await startVerifyingService(t, { env: { ...LIMITS, DAILY_SITE_SHARE: '100' } });
  const sites = await Promise.all([1, 2].map((n) => startKeyDirectory(t, [KEY], `site${n}.test`)));
  const contact = await startKeyDirectory(t, [KEY], 'site3.test');
  const signers = sites.map((site) => ({ key: KEY, agent: site.origin }));
  const contactSigning = { key: KEY, agent: contact.origin };
  await warm(service, [...signers, contactSigning]);
  const opened = await openFrom(service, '10.5.0.1', contactSigning);
  assert.equal((await runOwner(service.dbPath, ['trust', opened.body.id])).code, 0);

  const signed = await signedOpenings(service, signers, '10.6.0');
  const unsigned = Array.from({ length: 40 }, (_, i) =>
    heldRequest(service.url, OPEN, { key: newKey(), json: { message: `u${i}` }, headers: from(`10.7.0.${i}`) }),
  );
  const path = `${OPEN}/${opened.body.id}/messages`;
  const contactWrites = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const headers = { ...from('10.5.0.1'), ...(await signedHeaders(service, 'POST', path, contactSigning)) };
      return heldRequest(service.url, path, {
        token: opened.body.access_token,
        key: newKey(),
        json: { message: `c${i}` },
        headers,
      });
    }),
  );
  const all = [...signed, ...unsigned, ...contactWrites];
  await Promise.all(all.map((held) => held.continued));
  const reply = runOwner(service.dbPath, ['reply', opened.body.id, 'Here, as promised.']);
  const answers: ApiResponse[] = await Promise.all(all.map((held) => held.send()));
  assert.equal((await reply).code, 0, 'the owner replies');
  // The contact's opening came before the owner trusted it: a stranger's then, one of the pool of 30.
  assert.deepEqual(statuses(answers.slice(0, 30)), { 201: 29, 429: 1 }, 'the rest of the verified pool');
  assert.deepEqual(statuses(answers.slice(30, 70)), { 201: 30, 429: 10 }, 'the unverified pool of 30');
  assert.deepEqual(statuses(answers.slice(70)), { 201: 10 }, 'every message of the contact');
  assert.equal((await stats(service)).messages_today, 1 + 29 + 30 + 10 + 1);
});
