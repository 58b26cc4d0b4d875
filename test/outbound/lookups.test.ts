// Name lookups, the outbound work that a registration or a delivery makes first: never for a
// request that a quota, idempotency or a credential refuses, and bounded in number, a lookup that
// never answers counting against the bound until it really ends.

import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { test } from 'node:test';
import { openConversation, request, startTestService } from '../helpers.ts';
import { bearer, message, rpc } from '../doors/a2a/calls.ts';

/** A resolver that counts what it is asked, and answers with a public address (or never). */
function countingResolver(answer: 'public' | 'never') {
  const asked: string[] = [];
  const resolve = (host: string): Promise<readonly LookupAddress[]> => {
    asked.push(host);
    return answer === 'never' ? new Promise(() => {}) : Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
  };
  return { asked, resolve };
}

const push = (host: string) => ({ configuration: { taskPushNotificationConfig: { url: `https://${host}/hook` } } });

test('a SendMessage that a quota or its key refuses looks up nothing, whatever push URL it carries', async (t) => {
  const resolver = countingResolver('public');
  const service = await startTestService(t, {
    env: { DAILY_CONVERSATION_SHARE: '2', CREATE_LIMIT_PER_HOUR: '2' },
    lookups: { resolve: resolver.resolve },
  });
  const opened = await rpc(service, 'SendMessage', { ...message('Hello.'), ...push('first.example') });
  assert.ok(opened.body.result, JSON.stringify(opened.body));
  assert.deepEqual(resolver.asked, ['first.example'], 'an accepted opening looks its push URL up');
  const token = opened.body.result.task.metadata.accessToken as string;

  const followUp = message('Second.');
  assert.ok((await rpc(service, 'SendMessage', { ...followUp, ...push('second.example') }, bearer(token))).body.result);
  const retry = await rpc(service, 'SendMessage', { ...followUp, ...push('retry.example') }, bearer(token));
  assert.equal(retry.body.result.task.metadata.duplicate, true, 'an identical retry writes nothing');
  const third = { ...message('Third.'), ...push('share.example') };
  const overShare = await rpc(service, 'SendMessage', third, bearer(token));
  assert.equal(overShare.status, 429, 'the conversation stored its share');

  assert.ok((await rpc(service, 'SendMessage', message('Another opening.'))).body.result);
  const overHour = await rpc(service, 'SendMessage', { ...message('One too many.'), ...push('hour.example') });
  assert.equal(overHour.status, 429, 'the address opened its openings of the hour');
  assert.deepEqual(resolver.asked, ['first.example', 'second.example'], 'nothing else was looked up');
});

test('lookups that never answer are bounded: past three, a registration is answered 503 at once', async (t) => {
  const resolver = countingResolver('never');
  const service = await startTestService(t, { lookups: { resolve: resolver.resolve, lookupTimeoutMs: 50 } });
  const conversation = await openConversation(service.url);
  const register = (host: string) =>
    request(service.url, 'PUT', `/api/v1/conversations/${conversation.id}/webhook`, {
      token: conversation.token,
      json: { url: `https://${host}/hook` },
    });
  for (const host of ['a.example', 'b.example', 'c.example']) {
    const refused = await register(host);
    assert.equal(refused.status, 400, 'given up after its time-out');
    assert.equal(refused.body.error.reason, 'url_refused');
  }
  const busy = await register('d.example');
  assert.equal(busy.status, 503);
  assert.equal(busy.body.error.reason, 'outbound_busy');
  assert.equal(busy.headers.get('retry-after'), '5');
  assert.deepEqual(resolver.asked, ['a.example', 'b.example', 'c.example'], 'the fourth name was never asked');
  assert.equal(service.store.outbox.targets(conversation.id).length, 0, 'nothing was registered');
});

test('an A2A push config refused for its credential, its task or its room looks up nothing', async (t) => {
  const resolver = countingResolver('public');
  const service = await startTestService(t, { lookups: { resolve: resolver.resolve } });
  const create = (host: string, headers: Record<string, string> = {}, taskId?: string) =>
    rpc(service, 'CreateTaskPushNotificationConfig', { taskId, url: `https://${host}/hook` }, headers);
  assert.equal((await create('anonymous.example')).status, 401, 'no credential');
  const opened = await rpc(service, 'SendMessage', message('Hello.'));
  const task = opened.body.result.task;
  const token = task.metadata.accessToken as string;
  assert.equal((await create('wrong.example', bearer('f'.repeat(64)), task.id)).status, 401, 'a wrong credential');
  const other = await create('other-task.example', bearer(token), '00000000-0000-4000-8000-000000000000');
  assert.equal(other.body.error.code, -32001, 'another task');
  for (let i = 0; i < 5; i++) assert.ok((await create(`ok${i}.example`, bearer(token), task.id)).body.result);
  const sixth = await create('sixth.example', bearer(token), task.id);
  assert.equal(sixth.body.error.code, -32602, 'a task holds at most 5 configs');
  assert.deepEqual(resolver.asked, ['ok0.example', 'ok1.example', 'ok2.example', 'ok3.example', 'ok4.example']);
});
