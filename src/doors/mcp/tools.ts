// The MCP tools: what each one runs, with the same rules (conversations.ts) as its REST twin.
// What they say of themselves is in tool-list.ts. A refusal is a tool result whose text is
// the REST error body, worded for tool arguments, so that a model can correct itself.

import { randomUUID } from 'node:crypto';
import type { App } from '../../runtime/app.ts';
import { authenticate } from '../../rules/access.ts';
import { readMessages } from '../../rules/conversations.ts';
import { pollUpdates } from '../../runtime/polls.ts';
import { registerConversationWebhook } from '../../runtime/webhooks.ts';
import { removeWebhook, webhookOf } from '../../rules/push.ts';
import { currentRecord } from '../../rules/views.ts';
import { questionOf } from '../../rules/questions.ts';
import { refuse } from '../../refusals/refusal.ts';
import type { ClientContext } from '../context.ts';
import type { Client } from '../../runtime/client-writes.ts';
import { MCP_TERMS } from '../../refusals/terms.ts';
import type { Conversation } from '../../store/store.ts';
import { BOUNDS, type ToolName } from '../../base/contract.ts';
import {
  fieldsOf,
  historyRange,
  idempotencyKey,
  integerIn,
  kindOf,
  messageText,
  metadataOf,
  searchText,
  updatesAfter,
  waitSeconds,
} from '../../rules/validate.ts';
import { mcpMaxWaitSeconds, SEARCH_LIMIT_DEFAULT, SUMMARY_FIELDS, toolList } from './tool-list.ts';

interface ToolContext {
  readonly app: App;
  readonly client: Client;
  readonly args: Record<string, unknown>;
  /** aborted when the client goes away: a waiting check_updates stops waiting */
  readonly whenGone: () => AbortSignal;
}
type WithConversation = ToolContext & { conversation: Conversation };

/** The conversation that the access_token argument opens, for the conversation_id argument. */
function withCredential<R>(run: (ctx: WithConversation) => R) {
  return (ctx: ToolContext): R => {
    const token = typeof ctx.args.access_token === 'string' ? ctx.args.access_token : undefined;
    const conversation = authenticate(ctx.app.credentials, token, ctx.args.conversation_id, ctx.app.now());
    return run({ ...ctx, conversation });
  };
}

/** The idempotency_key argument, or a key of the server's own: then a retry is not recognised. */
const keyOf = (value: unknown) => (value === undefined ? `mcp-${randomUUID()}` : idempotencyKey(value));
const optionalString = (value: unknown, name: string, what: string) => {
  if (value !== undefined && typeof value !== 'string') throw refuse('wrong_type', name, what);
  return value ?? '';
};

/**
 * Tool arguments are JSON, and the tools' schemas say integer: a number sent as a string is
 * refused here (the validators shared with REST take query strings, which are always text).
 */
function numbersOnly(args: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    if (args[name] !== undefined && typeof args[name] !== 'number') throw refuse('wrong_type', name, 'a JSON number');
  }
}

function searchDirectory({ app, args }: ToolContext) {
  fieldsOf(args, ['q', 'kind', 'category', 'limit', 'offset']);
  numbersOnly(args, ['limit', 'offset']);
  const query = {
    kind: kindOf(args.kind),
    q: searchText(optionalString(args.q, 'q', `a string of at most ${BOUNDS.qMaxChars} characters`)),
    category: optionalString(args.category, 'category', 'a string'),
    limit: integerIn(args.limit, 'limit', SEARCH_LIMIT_DEFAULT, 1, BOUNDS.directoryLimitMax),
    offset: integerIn(args.offset, 'offset', 0, 0, BOUNDS.directoryOffsetMax),
  };
  const { items, total, next_offset, categories } = app.directory.page(query);
  const summaries = items.map((item) => Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, item[field]])));
  const page = { items: summaries, total, limit: query.limit, offset: query.offset, next_offset };
  return categories === undefined ? page : { ...page, categories }; // categories: only when nothing matched
}

function getListing({ app, args }: ToolContext) {
  fieldsOf(args, ['slug']);
  if (args.slug === undefined) throw refuse('required', 'slug', "a listing's slug from search_directory");
  const found = app.directory.listing(optionalString(args.slug, 'slug', 'a string'));
  if (!found) throw refuse('no_listing');
  return found;
}

function openConversation({ app, args, client }: ToolContext) {
  fieldsOf(args, ['message', 'metadata', 'idempotency_key', 'choices', 'reply_by']);
  const opening = {
    message: messageText(args.message),
    metadata: metadataOf(args.metadata),
    key: keyOf(args.idempotency_key),
    question: questionOf(args.choices, args.reply_by),
  };
  return app.open(opening, client);
}

function sendMessage({ app, args, conversation, client }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token', 'message', 'idempotency_key', 'choices', 'reply_by']);
  const input = {
    message: messageText(args.message),
    key: keyOf(args.idempotency_key),
    question: questionOf(args.choices, args.reply_by),
  };
  return app.followUp(conversation, input, client);
}

function checkUpdatesTool({ app, args, conversation, whenGone }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token', 'after', 'wait']);
  numbersOnly(args, ['after', 'wait']);
  const after = updatesAfter(args.after);
  const wait = waitSeconds(args.wait, mcpMaxWaitSeconds(app.config.pollIntervalSeconds));
  return pollUpdates(app, conversation, after, wait, whenGone);
}

function readMessagesTool({ app, args, conversation }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token', 'after', 'limit']);
  numbersOnly(args, ['after', 'limit']);
  return readMessages(app.store, conversation, historyRange(args.after, args.limit));
}

function getConversationTool({ app, args, conversation }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token']);
  return currentRecord(app.store, conversation, app.config, app.now());
}

async function closeConversationTool({ app, args, conversation }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token']);
  return currentRecord(app.store, await app.close(conversation), app.config, app.now());
}

async function setWebhookTool({ app, args, conversation }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token', 'url']);
  return (await registerConversationWebhook(app, conversation.id, args.url)).view;
}

function getWebhookTool({ app, args, conversation }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token']);
  return webhookOf(app.store, conversation.id);
}

async function deleteWebhookTool({ app, args, conversation }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token']);
  await app.write(() => removeWebhook(app.store, conversation.id));
  return {};
}

const RUN: Record<ToolName, (ctx: ToolContext) => unknown> = {
  search_directory: searchDirectory,
  get_listing: getListing,
  open_conversation: openConversation,
  send_message: withCredential(sendMessage),
  check_updates: withCredential(checkUpdatesTool),
  read_messages: withCredential(readMessagesTool),
  get_conversation: withCredential(getConversationTool),
  close_conversation: withCredential(closeConversationTool),
  set_webhook: withCredential(setWebhookTool),
  get_webhook: withCredential(getWebhookTool),
  delete_webhook: withCredential(deleteWebhookTool),
};

const lists = new WeakMap<App, ReturnType<typeof toolList>>();

/** tools/list's tools for this app, made once: their descriptions state its limits. */
export function toolsOf(app: App): ReturnType<typeof toolList> {
  const found = lists.get(app) ?? toolList(app.config, app.quotas);
  lists.set(app, found);
  return found;
}

/**
 * Runs the tool `name`: its result as structured content and as the same JSON in one text
 * block, or its refusal as a result with isError. Undefined when there is no such tool, unless the
 * request's signature was refused: that is judged before anything else, the tool's name included.
 */
export async function callTool(
  ctx: Pick<ClientContext, 'app' | 'client' | 'whenGone' | 'refusalOf' | 'signatureRefusal'>,
  name: unknown,
  args: unknown,
) {
  const tool = typeof name === 'string' && Object.hasOwn(RUN, name) ? (name as ToolName) : undefined;
  if (tool === undefined && !ctx.signatureRefusal) return undefined;
  try {
    if (ctx.signatureRefusal) throw ctx.signatureRefusal;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw refuse('not_an_object');
    }
    const run = RUN[tool!];
    const value = (await run({
      app: ctx.app,
      client: ctx.client,
      args: (args ?? {}) as Record<string, unknown>,
      whenGone: ctx.whenGone,
    })) as object;
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false };
  } catch (err) {
    const refusal = ctx.refusalOf(err, { tool: tool ?? '(unknown)' });
    const retry = refusal.headers['retry-after'];
    const error = {
      code: refusal.status,
      reason: refusal.reason,
      message: refusal.messageIn(MCP_TERMS),
      ...(retry && { retry_after_seconds: Number(retry) }),
    };
    return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true, refusal };
  }
}
