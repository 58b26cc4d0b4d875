// The walk's cases for refusals of what a request asks of a conversation (credentials, idempotency,
// state, the limits, signatures, push targets): each reason triggered on each door where it can occur.

import { fakeClock, request, type TestService } from '../helpers.ts';
import * as a2a from '../doors/a2a/calls.ts';
import { a2aCall, a2aReason, mcpTool, rest, restReason } from './doors.ts';
import type { Case, Walk } from './walk.ts';
import type { Signing } from '../identity/agents.ts';

const OPEN = '/api/v1/conversations';
const DOORS = ['rest', 'mcp', 'a2a'] as const;
type Door = (typeof DOORS)[number];
const c = (reason: string, door: Case['door'], run: Case['run']): Case => ({ reason, door, run });
const creds = (conversation: { id: string; token: string }) => ({
  conversation_id: conversation.id,
  access_token: conversation.token,
});

/** An opening through `door`, with `key` (a random one by default) and signing headers, if any. */
async function openThrough(walk: Walk, service: TestService, door: Door, key = walk.key(), headers = {}) {
  if (door === 'rest') return rest(service, 'POST', OPEN, { json: { message: 'Hello.' }, key, headers });
  if (door === 'mcp')
    return mcpTool(service, 'open_conversation', { message: 'Hello.', idempotency_key: key }, headers);
  const message = { messageId: key, role: 'ROLE_USER', parts: [{ text: 'Hello.' }] };
  return a2aCall(service, 'SendMessage', { message }, headers);
}

/** A follow-up through `door` to a conversation, with `key` and `text`. */
async function followThrough(
  service: TestService,
  door: Door,
  to: { id: string; token: string },
  key: string,
  text = 'More.',
) {
  if (door === 'rest')
    return rest(service, 'POST', `${OPEN}/${to.id}/messages`, { json: { message: text }, key, token: to.token });
  if (door === 'mcp') return mcpTool(service, 'send_message', { ...creds(to), message: text, idempotency_key: key });
  const message = { messageId: key, role: 'ROLE_USER', parts: [{ text }], taskId: to.id };
  return a2aCall(service, 'SendMessage', { message }, a2a.bearer(to.token));
}

/** A read of the conversation through `door` with `token` (none: no credential). */
async function readThrough(service: TestService, door: Door, id: string, token?: string) {
  if (door === 'rest') return rest(service, 'GET', `${OPEN}/${id}`, token === undefined ? {} : { token });
  if (door === 'mcp')
    return mcpTool(service, 'get_conversation', { conversation_id: id, ...(token && { access_token: token }) });
  return a2aCall(service, 'GetTask', { id }, token === undefined ? {} : a2a.bearer(token));
}

/** The second opening through `door` on a service whose limits `env` sets: the first passes. */
const secondOpening = (env: Record<string, string>) => (door: Door) => async (walk: Walk) => {
  const service = await walk.start(env);
  await openThrough(walk, service, door);
  return openThrough(walk, service, door);
};

/** The second signed opening through `door` on a signing service whose limits `env` sets. */
const secondSigned = (env: Record<string, string>) => (door: Door) => async (walk: Walk) => {
  const { service, signer } = await walk.signing(env);
  await openThrough(walk, service, door, walk.key(), await signedFor(walk, service, door, signer));
  return openThrough(walk, service, door, walk.key(), await signedFor(walk, service, door, signer));
};

function signedFor(walk: Walk, service: TestService, door: Door, signer: Signing) {
  return walk.signed(service, 'POST', door === 'rest' ? OPEN : `/${door}`, signer);
}

const perDoor = (reason: string, run: (door: Door) => Case['run']): Case[] =>
  DOORS.map((door) => c(reason, door, run(door)));

export const CONVERSATION_CASES: Case[] = [
  ...perDoor('no_credential', (door) => async (w) => {
    const service = await w.start();
    return readThrough(service, door, (await w.open(service)).id);
  }),
  ...perDoor('unknown_credential', (door) => async (w) => {
    const service = await w.start();
    return readThrough(service, door, (await w.open(service)).id, 'f'.repeat(64));
  }),
  ...perDoor('other_conversation', (door) => async (w) => {
    const service = await w.start();
    const [mine, theirs] = [await w.open(service), await w.open(service)];
    return readThrough(service, door, theirs.id, mine.token);
  }),
  c('bad_conversation_id', 'rest', async (w) => {
    const service = await w.start();
    return rest(service, 'GET', `${OPEN}/not-a-uuid`, { token: (await w.open(service)).token });
  }),
  c('bad_conversation_id', 'mcp', async (w) => {
    const service = await w.start();
    return mcpTool(service, 'get_conversation', { conversation_id: 'x', access_token: (await w.open(service)).token });
  }),
  ...perDoor('blocked', (door) => async (w) => {
    const service = await w.start();
    const conversation = await w.open(service);
    await w.owner(service, 'block', conversation.id);
    return readThrough(service, door, conversation.id, conversation.token);
  }),
  ...perDoor('expired', (door) => async (w) => {
    const clock = fakeClock();
    const service = await w.start({}, { now: clock.now });
    const conversation = await w.open(service);
    clock.advance(366 * 86_400_000);
    return readThrough(service, door, conversation.id, conversation.token);
  }),
  ...perDoor('creation_key_used', (door) => async (w) => {
    const service = await w.start();
    const key = w.key();
    await openThrough(w, service, door, key);
    return openThrough(w, service, door, key);
  }),
  ...perDoor('follow_up_key_conflict', (door) => async (w) => {
    const service = await w.start();
    const conversation = await w.open(service);
    const key = w.key();
    await followThrough(service, door, conversation, key, 'First.');
    return followThrough(service, door, conversation, key, 'Something else.');
  }),
  ...perDoor('conversation_closed', (door) => async (w) => {
    const service = await w.start();
    const conversation = await w.open(service);
    await w.owner(service, 'close', conversation.id);
    return followThrough(service, door, conversation, w.key());
  }),
  ...perDoor('daily_maximum', secondOpening({ DAILY_MESSAGE_LIMIT: '1' })),
  ...perDoor('address_share', secondOpening({ DAILY_ADDRESS_SHARE: '1' })),
  ...perDoor('unverified_pool', secondOpening({ DAILY_UNVERIFIED_SHARE: '1' })),
  ...perDoor('too_many_openings', secondOpening({ CREATE_LIMIT_PER_HOUR: '1' })),
  ...perDoor('agent_share', secondSigned({ DAILY_SITE_SHARE: '1' })),
  ...perDoor('verified_pool', secondSigned({ DAILY_VERIFIED_SHARE: '1', DAILY_SITE_SHARE: '1000' })),
  ...perDoor('conversation_share', (door) => async (w) => {
    const service = await w.start({ DAILY_CONVERSATION_SHARE: '1' });
    return followThrough(service, door, await w.open(service), w.key());
  }),
  ...perDoor('sender_blocked', (door) => async (w) => {
    const service = await w.start();
    await w.owner(service, 'block', (await w.open(service)).id, '--sender');
    return openThrough(w, service, door);
  }),
  ...perDoor('poll_too_soon', (door) => async (w) => {
    const service = await w.start();
    const conversation = await w.open(service);
    const poll = () =>
      door === 'rest'
        ? rest(service, 'GET', `${OPEN}/${conversation.id}/updates`, { token: conversation.token })
        : door === 'mcp'
          ? mcpTool(service, 'check_updates', creds(conversation))
          : a2aCall(service, 'GetTask', { id: conversation.id }, a2a.bearer(conversation.token));
    await poll();
    return poll();
  }),
  ...perDoor('signature_malformed', (door) => async (w) => {
    const { service, signer } = await w.signing();
    return openThrough(
      w,
      service,
      door,
      w.key(),
      await signedFor(w, service, door, { ...signer, params: ['created', 'tag'] }),
    );
  }),
  ...perDoor('signature_invalid', (door) => async (w) => {
    const { service, signer } = await w.signing();
    const stale = { ...signer, now: Date.now() - 3_600_000 }; // expired an hour ago less its 5 minutes
    return openThrough(w, service, door, w.key(), await signedFor(w, service, door, stale));
  }),
  ...perDoor('signature_replayed', (door) => async (w) => {
    const { service, signer } = await w.signing();
    const headers = await signedFor(w, service, door, signer);
    await openThrough(w, service, door, w.key(), headers);
    return openThrough(w, service, door, w.key(), headers);
  }),
  ...perDoor('key_directory_unavailable', (door) => async (w) => {
    const { service, signer } = await w.signing();
    const headers = await signedFor(w, service, door, { ...signer, agent: 'https://private.test' });
    return openThrough(w, service, door, w.key(), headers);
  }),
  c('metrics_credential', 'rest', async (w) =>
    rest(await w.start({ METRICS_TOKEN: 'm'.repeat(40) }), 'GET', '/metrics'),
  ),
  c('no_webhook', 'rest', async (w) => {
    const service = await w.start();
    const conversation = await w.open(service);
    return rest(service, 'GET', `${OPEN}/${conversation.id}/webhook`, { token: conversation.token });
  }),
  c('no_webhook', 'mcp', async (w) => {
    const service = await w.start();
    return mcpTool(service, 'get_webhook', creds(await w.open(service)));
  }),
  c('url_refused', 'rest', async (w) => {
    const service = await w.start();
    const conversation = await w.open(service);
    const json = { url: 'https://10.0.0.1/hook' };
    return rest(service, 'PUT', `${OPEN}/${conversation.id}/webhook`, { token: conversation.token, json });
  }),
  c('url_refused', 'mcp', async (w) => {
    const service = await w.start();
    return mcpTool(service, 'set_webhook', { ...creds(await w.open(service)), url: 'https://10.0.0.1/hook' });
  }),
  c('url_refused', 'a2a', async (w) => {
    const service = await w.start();
    const { id, token } = await w.open(service);
    return a2aCall(
      service,
      'CreateTaskPushNotificationConfig',
      { taskId: id, url: 'https://10.0.0.1/hook' },
      a2a.bearer(token),
    );
  }),
  c('too_many_push_configs', 'a2a', async (w) => {
    const service = await w.start({ OUTBOUND_ALLOWED_HOSTS: '127.0.0.1:9' });
    const { id, token } = await w.open(service);
    const create = () =>
      a2aCall(
        service,
        'CreateTaskPushNotificationConfig',
        { taskId: id, url: 'http://127.0.0.1:9/h' },
        a2a.bearer(token),
      );
    for (let i = 0; i < 5; i++) await create();
    return create();
  }),
  c('no_push_config', 'a2a', async (w) => {
    const service = await w.start();
    const { id, token } = await w.open(service);
    return a2aCall(service, 'GetTaskPushNotificationConfig', { taskId: id, id: 'none' }, a2a.bearer(token));
  }),
  c('wait_too_long', 'rest', async (w) => {
    const service = await w.start();
    const conversation = await w.open(service);
    return rest(service, 'GET', `${OPEN}/${conversation.id}/updates?wait=999`, { token: conversation.token });
  }),
  c('wait_too_long', 'mcp', async (w) => {
    const service = await w.start();
    return mcpTool(service, 'check_updates', { ...creds(await w.open(service)), wait: 51 });
  }),
];

// Refusals an A2A HTTP+JSON route gives through its own error shape (details, no id), spot-checked.
export const HTTP_JSON_CASES: Case[] = [
  c('no_credential', 'a2a', async (w) =>
    a2aReason(await request((await w.start()).url, 'GET', '/a2a/tasks/x', { headers: a2a.V })),
  ),
  c('not_json', 'a2a', async (w) =>
    a2aReason(
      await request((await w.start()).url, 'POST', '/a2a/message:send', {
        body: '{',
        headers: { ...a2a.V, 'content-type': 'application/json' },
      }),
    ),
  ),
  c('no_route', 'rest', async (w) => restReason(await request((await w.start()).url, 'GET', '/api/v1/nowhere'))),
];
