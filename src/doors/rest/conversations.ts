// The REST door to private conversations: each handler reads what the request carries,
// validates it, and hands it to the rules in conversations.ts. The route table puts the
// query and the credential in front of them; the limits are decided inside the rules.

import { readMessages } from '../../rules/conversations.ts';
import type { Reply } from '../../http/context.ts';
import type { ClientContext } from '../context.ts';
import { currentRecord } from '../../rules/views.ts';
import { questionOf } from '../../rules/questions.ts';
import type { Conversation } from '../../store/store.ts';
import { BOUNDS } from '../../base/contract.ts';
import {
  fieldsOf,
  historyRange,
  idempotencyKeyHeader,
  messageText,
  metadataOf,
  updatesAfter,
  waitSeconds,
  type Query,
} from '../../rules/validate.ts';
import { maxWaitSeconds, pollUpdates } from '../../runtime/polls.ts';

type WithQuery = ClientContext & { query: Query };
type Authenticated = WithQuery & { conversation: Conversation };

/** POST /api/v1/conversations */
export async function openConversation(ctx: WithQuery): Promise<Reply> {
  const body = fieldsOf(await ctx.readJson(BOUNDS.bodyBytes), ['message', 'metadata', 'choices', 'reply_by']);
  const key = idempotencyKeyHeader(ctx.req.headers['idempotency-key']);
  const [message, metadata] = [messageText(body.message), metadataOf(body.metadata)];
  const opening = { message, metadata, key, question: questionOf(body.choices, body.reply_by) };
  return { status: 201, body: await ctx.app.open(opening, ctx.client) };
}

/** GET /api/v1/conversations/{id} */
export function getConversation({ app, conversation }: Authenticated): Reply {
  return { status: 200, body: currentRecord(app.store, conversation, app.config, app.now()) };
}

/** GET /api/v1/conversations/{id}/messages */
export function listMessages({ app, conversation, query }: Authenticated): Reply {
  const range = historyRange(query.get('after'), query.get('limit'));
  return { status: 200, body: readMessages(app.store, conversation, range) };
}

/** POST /api/v1/conversations/{id}/messages */
export async function postMessage(ctx: Authenticated): Promise<Reply> {
  const body = fieldsOf(await ctx.readJson(BOUNDS.bodyBytes), ['message', 'choices', 'reply_by']);
  const key = idempotencyKeyHeader(ctx.req.headers['idempotency-key']);
  const input = { message: messageText(body.message), key, question: questionOf(body.choices, body.reply_by) };
  const result = await ctx.app.followUp(ctx.conversation, input, ctx.client);
  return { status: result.duplicate ? 200 : 201, body: result };
}

/** POST /api/v1/conversations/{id}/close: the agent ends its conversation; closing a closed one answers it. */
export async function closeConversation(ctx: Authenticated): Promise<Reply> {
  const closed = await ctx.app.close(ctx.conversation);
  return { status: 200, body: currentRecord(ctx.app.store, closed, ctx.app.config, ctx.app.now()) };
}

/** GET /api/v1/conversations/{id}/updates[?after=N&wait=S] */
export function getUpdates(ctx: Authenticated): Reply | Promise<Reply> {
  const { app, conversation, query } = ctx;
  const after = updatesAfter(query.get('after'));
  const wait = waitSeconds(query.get('wait'), maxWaitSeconds(app.config.pollIntervalSeconds));
  const updates = pollUpdates(app, conversation, after, wait, ctx.whenGone);
  // A poll that waits answers when the owner writes; any other answers now, without a promise.
  return updates instanceof Promise ? updates.then((body) => ({ status: 200, body })) : { status: 200, body: updates };
}
