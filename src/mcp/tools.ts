// The MCP tools: each one line of the table below, with the same guards and the same rules
// (conversations.ts) as its REST twin. A refusal is a tool result whose text is the REST
// error body, worded for tool arguments, so that a model can correct itself.

import { randomUUID } from 'node:crypto';
import type { App } from '../app.ts';
import { authenticate, checkUpdates, conversationRecord, readMessages } from '../conversations.ts';
import { openingLimit, pollInterval } from '../guards.ts';
import { SCHEMAS } from '../openapi.ts';
import { asRefusal, MCP_TERMS, refuse, type Refusal } from '../refusals.ts';
import type { Conversation } from '../store.ts';
import {
  fieldsOf,
  historyRange,
  idempotencyKey,
  integerIn,
  kindOf,
  LIMITS,
  messageText,
  metadataOf,
  searchText,
  updatesAfter,
} from '../validate.ts';

interface ToolContext {
  readonly app: App;
  readonly clientAddress: string;
  readonly requestId: string;
  readonly args: Record<string, unknown>;
}
type WithConversation = ToolContext & { conversation: Conversation };

export const INSTRUCTIONS =
  'A directory of communities and tools for AI agents, and a private line to the one human who runs this service. ' +
  'Search the directory freely with search_directory and get_listing; they need no credential. ' +
  'To reach the owner, call open_conversation once with a new idempotency_key and store the returned id and access_token at once: the token is shown only then. ' +
  'Pass them as conversation_id and access_token to send_message (a new idempotency_key per message), check_updates (at most once per poll_after_seconds) and read_messages. ' +
  'Replies are written by a human, by hand, and may take hours or days; nothing answers automatically.';

const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const writes = (idempotentHint: boolean) => ({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint,
  openWorldHint: false,
});
const input = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const integer = (minimum: number, maximum: number | undefined, description: string) => ({
  type: 'integer',
  minimum,
  ...(maximum && { maximum }),
  description,
});
const CREDENTIAL = {
  conversation_id: { type: 'string', format: 'uuid', description: 'The id open_conversation returned.' },
  access_token: {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
    description: 'The access_token open_conversation returned (64 lowercase hex characters).',
  },
};
const KEY = {
  type: 'string',
  minLength: 8,
  maxLength: 128,
  pattern: '^[\\w.:-]+$',
  description:
    'A new unique key (8 to 128 characters of A-Z a-z 0-9 _ . : -) for each new message; reuse it only to retry the same call.',
};
const MESSAGE = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.messageMaxChars,
  description: 'Your message, 1 to 8000 characters.',
};
const SUMMARY_FIELDS = ['slug', 'kind', 'name', 'category', 'description', 'url', 'status'];

/** A component schema with its references written out: an output schema must stand alone. */
function inlined(schema: unknown): object {
  if (typeof schema !== 'object' || schema === null) return schema as object;
  if (Array.isArray(schema)) return schema.map(inlined);
  const ref = (schema as { $ref?: string }).$ref;
  if (ref) return inlined(SCHEMAS[ref.split('/').at(-1) as keyof typeof SCHEMAS]);
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlined(value)]));
}
const listing = SCHEMAS.Listing.properties as Record<string, object>;
const SUMMARY_PAGE = inlined({
  ...SCHEMAS.ListingPage,
  properties: {
    ...SCHEMAS.ListingPage.properties,
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: SUMMARY_FIELDS,
        properties: Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, listing[field]])),
      },
    },
  },
});

/** The conversation that the access_token argument opens, for the conversation_id argument. */
function withCredential<R>(run: (ctx: WithConversation) => R) {
  return (ctx: ToolContext): R => {
    const token = typeof ctx.args.access_token === 'string' ? ctx.args.access_token : undefined;
    return run({ ...ctx, conversation: authenticate(ctx.app.store, token, ctx.args.conversation_id, ctx.app.now()) });
  };
}

/** The idempotency_key argument, or a key of the server's own: then a retry is not recognised. */
const keyOf = (value: unknown) => (value === undefined ? `mcp-${randomUUID()}` : idempotencyKey(value));
const optionalString = (value: unknown, name: string, what: string) => {
  if (value !== undefined && typeof value !== 'string') throw refuse('wrongType', name, what);
  return value ?? '';
};

function searchDirectory({ app, args }: ToolContext) {
  fieldsOf(args, ['q', 'kind', 'category', 'limit', 'offset']);
  const query = {
    kind: kindOf(args.kind),
    q: searchText(optionalString(args.q, 'q', `a string of at most ${LIMITS.qMaxChars} characters`)),
    category: optionalString(args.category, 'category', 'a string'),
    limit: integerIn(args.limit, 'limit', 10, 1, LIMITS.directoryLimitMax),
    offset: integerIn(args.offset, 'offset', 0, 0, LIMITS.directoryOffsetMax),
  };
  const { items, total, next_offset } = app.directory.page(query);
  return {
    items: items.map((item) => Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, item[field]]))),
    total,
    limit: query.limit,
    offset: query.offset,
    next_offset,
  };
}

function getListing({ app, args }: ToolContext) {
  fieldsOf(args, ['slug']);
  if (args.slug === undefined) throw refuse('required', 'slug', "a listing's slug from search_directory");
  const found = app.directory.listing(optionalString(args.slug, 'slug', 'a string'));
  if (!found) throw refuse('noListing');
  return found;
}

async function openConversation({ app, args, overLimit }: ToolContext & { overLimit: Refusal | null }) {
  fieldsOf(args, ['message', 'metadata', 'idempotency_key']);
  return app.open(
    { message: messageText(args.message), metadata: metadataOf(args.metadata), key: keyOf(args.idempotency_key) },
    overLimit,
  );
}

function sendMessage({ app, args, conversation }: WithConversation) {
  fieldsOf(args, ['conversation_id', 'access_token', 'message', 'idempotency_key']);
  return app.followUp(conversation, { message: messageText(args.message), key: keyOf(args.idempotency_key) });
}

function checkUpdatesTool({ app, args, conversation, tooSoon }: WithConversation & { tooSoon: Refusal | null }) {
  fieldsOf(args, ['conversation_id', 'access_token', 'after']);
  return checkUpdates(conversation, updatesAfter(args.after), app.config.pollIntervalSeconds, tooSoon);
}

interface Tool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: object;
  readonly outputSchema: object;
  readonly annotations: object;
  readonly run: (ctx: ToolContext) => unknown;
}

const TOOLS: readonly Tool[] = [
  {
    name: 'search_directory',
    title: 'Search the directory',
    annotations: READS,
    outputSchema: SUMMARY_PAGE,
    run: searchDirectory,
    description:
      "Search this service's public directory of communities and tools that AI agents can use: forums, social networks, open data and research APIs, and more. Results are summaries; call get_listing with a slug for how to take part. `q` matches a case-insensitive substring of name, slug, description, category and tags; `kind` and `category` filter exactly. Up to 100 results a page (default 10): follow next_offset until it is null. No credential needed.",
    inputSchema: input({
      q: {
        type: 'string',
        maxLength: LIMITS.qMaxChars,
        description: 'Words to look for, such as "weather" or "fediverse".',
      },
      kind: { type: 'string', enum: ['community', 'tool'] },
      category: { type: 'string', description: 'An exact category, such as "research".' },
      limit: integer(1, LIMITS.directoryLimitMax, 'Results per page, default 10.'),
      offset: integer(0, LIMITS.directoryOffsetMax, 'Results to skip, from next_offset.'),
    }),
  },
  {
    name: 'get_listing',
    title: 'Get a listing',
    annotations: READS,
    outputSchema: inlined(SCHEMAS.Listing),
    run: getListing,
    description:
      'Get one directory listing by its slug with everything an agent needs to take part there: registration, authentication, how to read and post, rate limits and pricing (in details and the other fields), and field_notes citing the documentation each claim was read from on verified_at. No credential needed.',
    inputSchema: input(
      { slug: { type: 'string', description: 'The slug from search_directory, such as "open-meteo".' } },
      ['slug'],
    ),
  },
  {
    name: 'open_conversation',
    title: 'Message the owner',
    annotations: writes(false),
    outputSchema: inlined(SCHEMAS.CreationResult),
    run: openingLimit(openConversation),
    description:
      'Start a private conversation with the human who runs this service. Returns id and access_token: store both at once, since the token is shown only here and never again; pass them as conversation_id and access_token to the other conversation tools. Replies are written by a human and may take hours or days. Pass a new idempotency_key: a retry with the same key is then refused instead of opening a second conversation (without one a retry may open a duplicate). Metadata is optional, self-declared and shown to the owner as unverified. Openings per address per hour and all messages per day are limited; a refusal says when to retry.',
    inputSchema: input(
      {
        message: MESSAGE,
        metadata: {
          type: 'object',
          additionalProperties: false,
          description: 'Optional, self-declared: who you are.',
          properties: {
            agent_name: { type: 'string', maxLength: 500 },
            model: { type: 'string', maxLength: 500 },
            framework: { type: 'string', maxLength: 500 },
          },
        },
        idempotency_key: KEY,
      },
      ['message'],
    ),
  },
  {
    name: 'send_message',
    title: 'Send a follow-up',
    annotations: writes(true),
    outputSchema: inlined(SCHEMAS.FollowUpResult),
    run: withCredential(sendMessage),
    description:
      'Send a follow-up message in your conversation. Use a new idempotency_key for each message; after a network failure, retry with the same key and message: you get the stored message with duplicate true, never a second copy (without a key a retry may store it twice). Refused when the owner closed the conversation (open a new one), and when the shared daily maximum of messages is reached (retry after retry_after_seconds).',
    inputSchema: input({ ...CREDENTIAL, message: MESSAGE, idempotency_key: KEY }, [
      'conversation_id',
      'access_token',
      'message',
    ]),
  },
  {
    name: 'check_updates',
    title: 'Check for a reply',
    annotations: READS,
    outputSchema: inlined(SCHEMAS.Updates),
    run: withCredential(pollInterval(checkUpdatesTool)),
    description:
      'Check whether the owner has replied, without reading the messages: new_reply is true when an owner message has a seq greater than `after` (the last seq you read). Check at most once every poll_after_seconds; sooner is refused with retry_after_seconds. Replies come from a human and may take hours: if there is none yet, check again later, then read it with read_messages.',
    inputSchema: input({ ...CREDENTIAL, after: integer(0, undefined, 'The last seq you have read; 0 at first.') }, [
      'conversation_id',
      'access_token',
    ]),
  },
  {
    name: 'read_messages',
    title: 'Read messages',
    annotations: READS,
    outputSchema: inlined(SCHEMAS.History),
    run: withCredential(({ app, args, conversation }) => {
      fieldsOf(args, ['conversation_id', 'access_token', 'after', 'limit']);
      return readMessages(app.store, conversation, historyRange(args.after, args.limit));
    }),
    description:
      "Read your conversation's messages in order: those with a seq greater than `after` (0 for all), at most `limit` (1 to 100, default 50), each with seq, author (client or owner), message and created_at. has_more says whether more follow after next_after.",
    inputSchema: input(
      {
        ...CREDENTIAL,
        after: integer(0, undefined, 'The last seq you have read; 0 for all.'),
        limit: integer(1, LIMITS.historyLimitMax, 'At most this many, default 50.'),
      },
      ['conversation_id', 'access_token'],
    ),
  },
  {
    name: 'get_conversation',
    title: 'Get the conversation',
    annotations: READS,
    outputSchema: inlined(SCHEMAS.Conversation),
    run: withCredential(({ app, args, conversation }) => {
      fieldsOf(args, ['conversation_id', 'access_token']);
      return conversationRecord(conversation, app.config.publicBaseUrl, app.config.pollIntervalSeconds);
    }),
    description:
      "Get your conversation's record: status (open: waiting for the owner; answered: the owner wrote last; closed: readable, but takes no new messages), last_seq, latest_owner_seq, message_count, the credential's expires_at, and the metadata you declared.",
    inputSchema: input(CREDENTIAL, ['conversation_id', 'access_token']),
  },
];

export const TOOL_LIST = TOOLS.map(({ run: _run, ...tool }) => tool);

/**
 * Runs the tool `name`: its result as structured content and as the same JSON in one text
 * block, or its refusal as a result with isError. Undefined when there is no such tool.
 */
export async function callTool(
  ctx: { app: App; clientAddress: string; requestId: string },
  name: unknown,
  args: unknown,
) {
  const tool = TOOLS.find((candidate) => candidate.name === name);
  if (!tool) return undefined;
  try {
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
      throw refuse('notAnObject');
    const value = (await tool.run({
      app: ctx.app,
      clientAddress: ctx.clientAddress,
      requestId: ctx.requestId,
      args: (args ?? {}) as Record<string, unknown>,
    })) as object;
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false };
  } catch (err) {
    const { refusal, expected } = asRefusal(err);
    if (!expected) ctx.app.logUnexpected(ctx.requestId, err, { tool: tool.name });
    const retry = refusal.headers['retry-after'];
    const error = {
      code: refusal.status,
      message: refusal.messageIn(MCP_TERMS),
      ...(retry && { retry_after_seconds: Number(retry) }),
    };
    return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true };
  }
}
