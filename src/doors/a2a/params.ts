// A2A requests read into what the rules take: ProtoJSON field names (camelCase), snake_case names
// read too, and "" counted as absent; a message's text, key and question; an opening's metadata; a
// push notification config; the history window; and the task id a request names.

import { METADATA_KEYS } from '../../base/contract.ts';
import type { PushConfigInput } from '../../rules/push.ts';
import { refuse } from '../../refusals/refusal.ts';
import type { Conversation } from '../../store/store.ts';
import { idempotencyKey, metadataOf } from '../../rules/validate.ts';
import type { QuestionInput } from '../../rules/questions.ts';
import { a2aRefusal } from './errors.ts';
import { checkedParts, readParts } from './parts.ts';

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

export const invalid = (message: string) => a2aRefusal('invalid_params', message);

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

/** The task id a request names must be the credential's conversation: another is not found. */
export function ownTask(conversation: Conversation, taskId: unknown): void {
  if (taskId === undefined) throw invalid('`id` (the task id) is required.');
  if (typeof taskId !== 'string' || taskId.toLowerCase() !== conversation.id) {
    throw refuse('other_conversation'); // never reveal another conversation's task: TaskNotFound
  }
}
