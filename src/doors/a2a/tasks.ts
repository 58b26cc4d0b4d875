// A conversation as an A2A task, and A2A requests read into what the rules take. One
// conversation is one task for its whole life: task.id = contextId = the conversation id;
// its status says whose turn it is; its history is the messages, newest last. ProtoJSON field
// names (camelCase); snake_case names are read too, and "" counts as absent.

import type { App } from '../../runtime/app.ts';
import { METADATA_KEYS } from '../../base/contract.ts';
import { withinTextBudget } from '../../rules/conversations.ts';
import type { PushConfigInput } from '../../rules/push.ts';
import { refuse } from '../../refusals/refusal.ts';
import type { Conversation, Message } from '../../store/store.ts';
import { taskState } from '../../rules/task-state.ts';
import { idempotencyKey, metadataOf } from '../../rules/validate.ts';
import { currentQuestion, type QuestionInput } from '../../rules/questions.ts';
import { a2aRefusal } from './errors.ts';
import { checkedParts, outboundParts, readParts } from './parts.ts';

export const HISTORY_DEFAULT = 100; // messages a task shows when historyLength is unset, and at most

type Json = Record<string, unknown>;

/** A member by its camelCase name or its snake_case one; "" is absent. */
export function member(object: Json, name: string): unknown {
  const value = object[name] ?? object[snakeCase(name)];
  return value === '' ? undefined : value;
}

// Member names are literals of this code, never a client's text: the map holds a few dozen.
const SNAKE_NAMES = new Map<string, string>();

function snakeCase(name: string): string {
  let snake = SNAKE_NAMES.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    SNAKE_NAMES.set(name, snake);
  }
  return snake;
}

export const invalid = (message: string) => a2aRefusal('invalidParams', 'invalid_params', message);

/** An object member, or {} when absent; InvalidParams when it is anything else. */
export function objectMember(object: Json, name: string): Json {
  const value = member(object, name);
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`\`${name}\` must be an object.`);
  return value as Json;
}

/** A string member or undefined; InvalidParams when it is anything else. */
export function stringMember(object: Json, name: string): string | undefined {
  const value = member(object, name);
  if (value !== undefined && typeof value !== 'string') throw invalid(`\`${name}\` must be a string.`);
  return value;
}

/** A whole number member in [min, max], or undefined; query values arrive as strings. */
export function integerMember(object: Json, name: string, min: number, max: number): number | undefined {
  const raw = member(object, name);
  if (raw === undefined) return undefined;
  // Up to 16 digits are read as a number; the range check below refuses what is past MAX_SAFE_INTEGER.
  const value = typeof raw === 'string' && /^-?\d{1,16}$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`\`${name}\` must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

/** A tenant is not used here: a non-empty one is refused. */
export function refuseTenant(params: Json): void {
  if (member(params, 'tenant') !== undefined) throw invalid('`tenant` is not used by this agent; leave it empty.');
}

/** What SendMessage's `message` holds for the rules: its text and question from the user, and its messageId. */
export interface Inbound {
  readonly text: string;
  readonly question: QuestionInput;
  readonly key: string;
  readonly taskId: string | undefined;
  readonly contextId: string | undefined;
}

export function inboundMessage(params: Json): Inbound {
  const message = member(params, 'message');
  if (message === undefined || typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw invalid('`message` is required: {"role": "ROLE_USER", "parts": [{"text": "…"}], "messageId": "…"}.');
  }
  const m = message as Json;
  const role = member(m, 'role');
  if (role !== 'ROLE_USER' && role !== 'user')
    throw invalid('`message.role` must be ROLE_USER: the owner writes as the agent.');
  const parts = checkedParts(member(m, 'parts'));
  const rawKey = member(m, 'messageId');
  if (rawKey === undefined) throw invalid('`message.messageId` is required: a new unique id (a UUID) per message.');
  return {
    ...readParts(parts),
    key: idempotencyKey(rawKey, 'message.messageId'),
    taskId: stringMember(m, 'taskId'),
    contextId: stringMember(m, 'contextId'),
  };
}

/** An opening's self-declared metadata (agent_name, model, framework) from the request's; other keys ignored. */
export function openingMetadata(params: Json): Record<string, string> {
  const metadata = objectMember(params, 'metadata');
  const declared = Object.fromEntries(
    METADATA_KEYS.filter((key) => key in metadata).map((key) => [key, metadata[key]]),
  );
  return metadataOf(declared);
}

/** A push notification config as a client sends it; the URL is checked by the caller. */
export function pushConfigInput(config: Json): PushConfigInput & { taskId: string | undefined } {
  const url = stringMember(config, 'url');
  if (url === undefined) throw invalid('`url` is required: the https URL to POST task updates to.');
  const authentication = objectMember(config, 'authentication');
  const scheme = stringMember(authentication, 'scheme');
  const credentials = stringMember(authentication, 'credentials');
  for (const [name, value] of [
    ['id', member(config, 'id')],
    ['token', member(config, 'token')],
    ['scheme', scheme],
    ['credentials', credentials],
  ] as const) {
    if (
      value !== undefined &&
      (typeof value !== 'string' || value.length > 1000 || /[\u0000-\u001f\u007f]/.test(value))
    ) {
      throw invalid(`\`${name}\` must be a string of at most 1000 characters without control characters.`);
    }
  }
  if (scheme !== undefined && !/^[A-Za-z][A-Za-z0-9._-]*$/.test(scheme))
    throw invalid('`authentication.scheme` must be one word, such as Bearer.');
  return {
    id: (member(config, 'id') as string | undefined) ?? null,
    taskId: stringMember(config, 'taskId'),
    url,
    token: (member(config, 'token') as string | undefined) ?? null,
    scheme: scheme ?? null,
    credentials: credentials ?? null,
  };
}

/** The task's history window: unset → the newest 100; 0 → none; n → the newest min(n, 100). */
export function historyLengthOf(params: Json): number {
  const asked = integerMember(params, 'historyLength', 0, Number.MAX_SAFE_INTEGER);
  return Math.min(asked ?? HISTORY_DEFAULT, HISTORY_DEFAULT);
}

/** A conversation as a Task. */
export function taskOf(app: App, conversation: Conversation, historyLength: number, extra: Json = {}) {
  const { id } = conversation;
  const newest = historyLength === 0 ? [] : withinTextBudget(app.store.newestMessages(id, historyLength), 'newest');
  const history = newest.map((message) => messageOf(id, message));
  const status = {
    state: taskState(conversation.status, conversation.closed_by),
    message: statusMessage(app, conversation, newest.at(-1)),
    timestamp: conversation.changed_at,
  };
  return {
    id,
    contextId: id,
    status,
    history,
    metadata: {
      conversationStatus: conversation.status,
      lastSeq: conversation.last_seq,
      latestOwnerSeq: conversation.latest_owner_seq,
      expiresAt: conversation.expires_at,
      pollAfterSeconds: app.config.pollIntervalSeconds,
      verifiedAgent: conversation.verified_agent, // the identity that signed the opening, or null
      question: currentQuestion(app.store, id, app.now()), // the newest question and its state, or null
      ...extra,
    },
  };
}

/** A message, with the key a client sent it with where it was read (an owner's has none). */
type Row = Message & { key?: string | null };

/** A message as A2A shows it: the client's with its messageId (its key), the owner's with id:seq. */
function messageOf(id: string, row: Row) {
  const own = row.author === 'owner';
  return {
    messageId: own || row.key == null ? `${id}:${row.seq}` : row.key,
    contextId: id,
    taskId: id,
    role: own ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: outboundParts(row),
    // A client's message carries the identity that signed it (null: unsigned); the owner's, none.
    metadata: own
      ? { seq: row.seq, createdAt: row.created_at }
      : { seq: row.seq, createdAt: row.created_at, verifiedAgent: row.verified_agent },
  };
}

/**
 * The status message: the owner's newest when it is the agent's turn (an answered conversation's
 * newest message is the owner's), else a note that stays out of history.
 */
function statusMessage(app: App, conversation: Conversation, newest: Row | undefined) {
  const { id } = conversation;
  if (conversation.status === 'answered') {
    const reply = newest ?? app.store.messageBySeq(id, conversation.latest_owner_seq);
    if (reply?.author === 'owner') return messageOf(id, reply);
  }
  const every = app.config.pollIntervalSeconds;
  const closer = conversation.closed_by === 'agent' ? 'You' : 'The owner';
  const text =
    conversation.status === 'closed'
      ? `${closer} closed this conversation. It can still be read; it takes no new messages.`
      : 'Delivered. A human answers by hand, often hours later; check this task at most once every ' +
        `${every} seconds, or register a push notification config.`;
  return note(id, conversation.last_seq, text);
}

/** A note from the service (not the owner): messageId id:note:lastSeq. */
export function note(id: string, lastSeq: number, text: string) {
  return {
    messageId: `${id}:note:${lastSeq}`,
    contextId: id,
    taskId: id,
    role: 'ROLE_AGENT',
    parts: [{ text, mediaType: 'text/plain' }],
  };
}

/** The task id a request names must be the credential's conversation: another is not found. */
export function ownTask(conversation: Conversation, taskId: unknown): void {
  if (taskId === undefined) throw invalid('`id` (the task id) is required.');
  if (typeof taskId !== 'string' || taskId.toLowerCase() !== conversation.id) {
    throw refuse('other_conversation'); // never reveal another conversation's task: TaskNotFound
  }
}
