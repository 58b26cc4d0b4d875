// Signed webhooks from a durable outbox: registered with the credential, told of the owner's
// replies, closes and reopens, checked with the official Standard Webhooks verifier, and
// delivered at least once across failures, restarts and a killed server.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  assertRefused,
  openConversation,
  request,
  ROOT,
  runOwner,
  startServerProcess,
  startTestService,
  tempDir,
  waitUntil,
} from '../../helpers.ts';
import { receiver } from '../../receiver.ts';

const FAST = { tickMs: 20, retryAfterMs: [50, 100], giveUpAfterMs: 60_000 };
const env = { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' };

async function register(base: string, conversation: { id: string; token: string }, url: string) {
  return request(base, 'PUT', `/api/v1/conversations/${conversation.id}/webhook`, {
    token: conversation.token,
    json: { url },
  });
}

test("the owner's reply, close and reopen reach the webhook, signed per Standard Webhooks, with no text", async (t) => {
  const hook = await receiver(t);
  const service = await startTestService(t, { env, deliveryTiming: FAST });
  const conversation = await openConversation(service.url, { message: 'secret plans, not for webhooks' });
  const registered = await register(service.url, conversation, hook.url);
  assert.equal(registered.status, 201);
  assert.match(registered.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(registered.body.events, ['conversation.replied', 'conversation.closed', 'conversation.reopened']);

  for (const command of [
    ['reply', conversation.id, 'An answer only the API shows.'],
    ['close', conversation.id],
    ['reopen', conversation.id],
  ]) {
    const ran = await runOwner(service.dbPath, command);
    assert.equal(ran.code, 0, ran.stderr);
  }
  await waitUntil(() => hook.received.length >= 3, 'three events were delivered');
  const verifier = new Webhook(registered.body.secret);
  const events = hook.received.map(({ headers, body }) => verifier.verify(body, headers as Record<string, string>));
  assert.deepEqual(
    events.map((event: any) => [event.type, event.data.status, event.data.last_seq, event.data.latest_owner_seq]),
    [
      ['conversation.replied', 'answered', 2, 2],
      ['conversation.closed', 'closed', 2, 2],
      ['conversation.reopened', 'answered', 2, 2],
    ],
  );
  for (const { body, headers } of hook.received) {
    assert.equal(JSON.parse(body).data.conversation_id, conversation.id);
    assert.doesNotMatch(body, /secret plans|An answer only/, 'never the message text');
    assert.ok(!body.includes(conversation.token) && !JSON.stringify(headers).includes(conversation.token));
    assert.match(String(headers['webhook-id']), /^msg_/);
  }
  const ids = new Set(hook.received.map(({ headers }) => headers['webhook-id']));
  assert.equal(ids.size, 3, 'each event has its own webhook-id');
  const logged = JSON.stringify(service.logs);
  assert.ok(
    !logged.includes(conversation.token) && !logged.includes('secret plans') && !logged.includes('An answer only'),
  );
  assert.ok(!logged.includes(registered.body.secret), 'nor the signing secret');
});

test('GET shows the webhook and its deliveries without the secret; PUT replaces it; DELETE removes it', async (t) => {
  const hook = await receiver(t);
  const service = await startTestService(t, { env, deliveryTiming: FAST });
  const conversation = await openConversation(service.url);
  const path = `/api/v1/conversations/${conversation.id}/webhook`;
  assertRefused(await request(service.url, 'GET', path, { token: conversation.token }), 404, /no webhook/);
  const first = await register(service.url, conversation, hook.url);
  const second = await register(service.url, conversation, hook.url);
  assert.equal(second.status, 200, 'a replacement');
  assert.notEqual(second.body.secret, first.body.secret, 'with a new secret');
  await runOwner(service.dbPath, ['reply', conversation.id, 'hi']);
  await waitUntil(() => hook.received.length === 1, 'the reply was delivered');
  await waitUntil(() => service.store.outbox.targets(conversation.id)[0]?.last_outcome !== null, 'recorded');
  const shown = await request(service.url, 'GET', path, { token: conversation.token });
  assert.equal(shown.status, 200);
  assert.equal(shown.headers.get('cache-control'), 'no-store');
  assert.equal(shown.body.secret, undefined);
  assert.equal(shown.body.url, hook.url);
  assert.equal(shown.body.failures_since_last_success, 0);
  assert.match(shown.body.last_outcome, /^delivered \(204\)$/);
  assert.equal(
    (new Webhook(second.body.secret).verify(hook.received[0]!.body, hook.received[0]!.headers as any) as any).type,
    'conversation.replied',
  );
  assert.equal((await request(service.url, 'DELETE', path, { token: conversation.token })).status, 204);
  assertRefused(await request(service.url, 'DELETE', path, { token: conversation.token }), 404, /no webhook/);
  const other = await openConversation(service.url);
  assertRefused(await request(service.url, 'GET', path, { token: other.token }), 403, /another conversation/);
});

test('a receiver that fails, then recovers, gets the event once it does', async (t) => {
  const hook = await receiver(t, (n) => (n < 3 ? 503 : 200));
  const service = await startTestService(t, { env, deliveryTiming: FAST });
  const conversation = await openConversation(service.url);
  await register(service.url, conversation, hook.url);
  await runOwner(service.dbPath, ['reply', conversation.id, 'hi']);
  await waitUntil(() => hook.received.length === 3, 'two failures, then a delivery');
  const ids = new Set(hook.received.map(({ headers }) => headers['webhook-id']));
  assert.equal(ids.size, 1, 'the same event each time: the receiver deduplicates by webhook-id');
  await waitUntil(() => service.store.outbox.targets(conversation.id)[0]?.failures === 0, 'the success recorded');
  assert.equal(service.store.outbox.pending(service.store.outbox.targets(conversation.id)[0]!.id), 0);
});

test('an event is given up a day after it was written, and recorded', async (t) => {
  const hook = await receiver(t, () => 500);
  const service = await startTestService(t, {
    env,
    deliveryTiming: { tickMs: 20, retryAfterMs: [50], giveUpAfterMs: 200 },
  });
  const conversation = await openConversation(service.url);
  await register(service.url, conversation, hook.url);
  await runOwner(service.dbPath, ['reply', conversation.id, 'hi']);
  const target = () => service.store.outbox.targets(conversation.id)[0]!;
  await waitUntil(() => service.store.outbox.pending(target().id) === 0, 'the event was given up');
  const attempts = hook.received.length;
  assert.ok(attempts >= 2, 'tried again before giving up');
  assert.match(target().last_outcome ?? '', /the receiver answered 500/);
  assert.equal(target().failures, attempts);
  const shown = await runOwner(service.dbPath, ['show', conversation.id]);
  assert.match(shown.stdout, /webhook +http:\/\/127\.0\.0\.1:\d+\/hooks.*\n.*last attempt .*the receiver answered 500/);
});

test('a reply written while the server was stopped is delivered when it starts', async (t) => {
  const hook = await receiver(t);
  const dir = tempDir(t);
  const first = await startTestService(t, { dir, env, deliveryTiming: FAST });
  const conversation = await openConversation(first.url);
  await register(first.url, conversation, hook.url);
  await first.close();
  const reply = await runOwner(first.dbPath, ['reply', conversation.id, 'written while stopped']);
  assert.equal(reply.code, 0, reply.stderr);
  await startTestService(t, { dir, env, deliveryTiming: FAST });
  await waitUntil(() => hook.received.length === 1, 'the event went out after the start');
  assert.equal(JSON.parse(hook.received[0]!.body).type, 'conversation.replied');
});

test('a server killed with SIGKILL mid-delivery delivers the event again after a restart', async (t) => {
  const hook = await receiver(t, (n) => (n === 1 ? 'hang' : 204));
  const dir = tempDir(t);
  const serverEnv = { ...env, DB_PATH: `${dir}/service.db` };
  const server = await startServerProcess(t, serverEnv);
  const conversation = await openConversation(server.url);
  await register(server.url, conversation, hook.url);
  await runOwner(`${dir}/service.db`, ['reply', conversation.id, 'hi']);
  await waitUntil(() => hook.received.length === 1, 'the first delivery reached the receiver, which hangs');
  await server.stop('SIGKILL');
  await startServerProcess(t, serverEnv);
  await waitUntil(() => hook.received.length === 2, 'delivered again after the restart', 15_000);
  assert.equal(hook.received[1]!.headers['webhook-id'], hook.received[0]!.headers['webhook-id'], 'the same event');
});

test('registration refuses every address the service must not call, naming the rule', async (t) => {
  const service = await startTestService(t); // no OUTBOUND_ALLOWED_HOSTS
  const conversation = await openConversation(service.url);
  const refused: [string, RegExp][] = [
    ['http://example.org/hook', /must use https/],
    ['ftp://example.org/hook', /must use https/],
    ['https://user:pass@example.org/hook', /user name or password/],
    ['https://127.0.0.1/hook', /127\.0\.0\.1/],
    ['https://10.1.2.3/hook', /10\.1\.2\.3/],
    ['https://172.16.0.1/hook', /172\.16\.0\.1/],
    ['https://192.168.1.1/hook', /192\.168\.1\.1/],
    ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
    ['https://100.64.0.1/hook', /100\.64\.0\.1/],
    ['https://224.0.0.1/hook', /224\.0\.0\.1/],
    ['https://0.0.0.0/hook', /0\.0\.0\.0/],
    ['https://[::1]/hook', /::1/],
    ['https://[fd00::1]/hook', /fd00::1/],
    ['https://[fe80::1]/hook', /fe80::1/],
    ['https://[::ffff:10.0.0.1]/hook', /::ffff/],
    ['https://localhost/hook', /does not resolve to public addresses only/], // resolves to loopback
    ['not a url', /not a valid absolute URL/],
    [`https://example.org/${'a'.repeat(2100)}`, /at most 2048 characters/],
  ];
  for (const [url, says] of refused) {
    const response = await register(service.url, conversation, url);
    assertRefused(response, 400, new RegExp(`The field \`url\` cannot be used: .*(${says.source})`), url.slice(0, 60));
    // Where a developer's local receiver is refused (http, a private address), the answer says how to test.
    const local = !/^(ftp:|not a url)|user:pass|a{2100}/.test(url);
    assert.equal(/OUTBOUND_ALLOWED_HOSTS=127\.0\.0\.1:9000 npm start/.test(response.text), local, url.slice(0, 60));
  }
  assertRefused(
    await request(service.url, 'PUT', `/api/v1/conversations/${conversation.id}/webhook`, {
      token: conversation.token,
      json: { url: 'https://example.org', extra: 1 },
    }),
    400,
    /unknown field "extra"/,
  );
  assert.equal(service.store.outbox.targets(conversation.id).length, 0, 'nothing was registered');
});

test('a webhook is registered only with the credential', async (t) => {
  const service = await startTestService(t, { env });
  const conversation = await openConversation(service.url);
  const path = `/api/v1/conversations/${conversation.id}/webhook`;
  assertRefused(await request(service.url, 'PUT', path, { json: { url: 'http://127.0.0.1/x' } }), 401, /Authorization/);
  assertRefused(
    await request(service.url, 'PUT', `${path}?access_token=${conversation.token}`, { json: { url: 'x' } }),
    400,
    /Never put the credential in a URL/,
  );
});

test('contact-info, /llms.txt, the README and the API guide give one command for a local receiver', async (t) => {
  // The README's receiver listens on 9000 (8080 is the service's own): every hint names that one command.
  const command = /OUTBOUND_ALLOWED_HOSTS=127\.0\.0\.1:9000 npm start/;
  const service = await startTestService(t);
  const info = await request(service.url, 'GET', '/api/v1/contact-info');
  assert.match(JSON.stringify(info.body.protocol), new RegExp(`receiver on your own machine .*${command.source}`));
  const llms = await request(service.url, 'GET', '/llms.txt');
  assert.match(llms.text, new RegExp(`to test with a receiver on your own machine .*${command.source}`));
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  assert.match(readme, new RegExp(`to try a receiver on your own machine, .*\`${command.source}\``));
  const api = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8').replace(/\s+/g, ' ');
  assert.match(api, new RegExp(`\`${command.source}\`, and register \`http://127\\.0\\.0\\.1:9000/…\``));
});
