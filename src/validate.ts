// Validators: one plain function per request shape. Each returns the clean value or
// throws a 400 whose message says what to fix. "Characters" are Unicode code points.

import { HttpError } from './errors.ts';

export const LIMITS = Object.freeze({
  bodyBytes: 16384,
  messageMaxChars: 8000,
  metadataValueMaxChars: 500,
  idempotencyKeyMinLength: 8,
  idempotencyKeyMaxLength: 128,
  qMaxChars: 120,
  directoryLimitDefault: 30,
  directoryLimitMax: 100,
  directoryOffsetMax: 10000,
  historyLimitDefault: 50,
  historyLimitMax: 100,
  credentialLifetimeDays: 365,
});

const METADATA_KEYS = ['agent_name', 'model', 'framework'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export type Query = ReadonlyMap<string, string>;

function badRequest(message: string): HttpError {
  return new HttpError(400, message);
}

/** Counts Unicode code points, not UTF-16 units. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function readInteger(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === undefined) return fallback;
  const rangeText = max === MAX_SEQ ? `${min} or greater` : `from ${min} to ${max}`;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw badRequest(`\`${name}\` must be a whole number ${rangeText}`);
  }
  return Number(raw);
}

/** `q`, `category`, `limit`, `offset` of the directory lists. Empty `q`/`category` mean no filter. */
export function parseDirectoryQuery(query: Query) {
  const q = query.get('q') ?? '';
  if (codePointLength(q) > LIMITS.qMaxChars) {
    throw badRequest(`\`q\` must be at most ${LIMITS.qMaxChars} characters, got ${codePointLength(q)}`);
  }
  return {
    q,
    category: query.get('category') ?? '',
    limit: readInteger(query, 'limit', LIMITS.directoryLimitDefault, 1, LIMITS.directoryLimitMax),
    offset: readInteger(query, 'offset', 0, 0, LIMITS.directoryOffsetMax),
  };
}

/** `after` and `limit` of the history. */
export function parseHistoryQuery(query: Query) {
  return {
    after: readInteger(query, 'after', 0, 0, MAX_SEQ),
    limit: readInteger(query, 'limit', LIMITS.historyLimitDefault, 1, LIMITS.historyLimitMax),
  };
}

/** `after` of the updates signal. */
export function parseUpdatesQuery(query: Query) {
  return { after: readInteger(query, 'after', 0, 0, MAX_SEQ) };
}

/** A conversation id from the path; ids are compared in lower case. */
export function parseConversationId(raw: string): string {
  if (!UUID.test(raw)) throw badRequest('the conversation id in the path must be a UUID such as 7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11');
  return raw.toLowerCase();
}

/** The Idempotency-Key header; the IETF draft's quoted form `"key"` is accepted. */
export function parseIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined) {
    throw badRequest('the Idempotency-Key header is required: send a new unique key (8 to 128 characters of A-Z a-z 0-9 _ . : -) with each new message');
  }
  if (Array.isArray(header) || header.includes(',')) {
    throw badRequest('send exactly one Idempotency-Key header');
  }
  const key = header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
  if (key.length < LIMITS.idempotencyKeyMinLength || key.length > LIMITS.idempotencyKeyMaxLength) {
    throw badRequest(`the Idempotency-Key must be 8 to 128 characters long, got ${key.length}`);
  }
  if (!/^[\w.:-]+$/.test(key)) {
    throw badRequest('the Idempotency-Key may hold only letters A-Z and a-z, digits, and _ . : -');
  }
  return key;
}

function requireObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the request body must be a JSON object such as {"message": "..."}');
  }
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw badRequest(`unknown field ${JSON.stringify(unknown[0])} in the body; allowed fields: ${allowed.join(', ')}`);
  }
  return body as Record<string, unknown>;
}

function parseMessageText(value: unknown): string {
  if (value === undefined) throw badRequest('`message` is required: a string of 1 to 8000 characters');
  if (typeof value !== 'string') throw badRequest('`message` must be a string of 1 to 8000 characters');
  if (value.trim() === '') throw badRequest('`message` must not be empty or only white space');
  const length = codePointLength(value);
  if (length > LIMITS.messageMaxChars) {
    throw badRequest(`\`message\` must be at most ${LIMITS.messageMaxChars} characters, got ${length}`);
  }
  if (value.includes('\u0000')) throw badRequest('`message` must not contain the NUL character (\\u0000)');
  if (!value.isWellFormed()) throw badRequest('`message` must be valid Unicode (it holds a lone surrogate escape)');
  return value;
}

function parseMetadata(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('`metadata` must be an object with any of agent_name, model, framework');
  }
  const metadata: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!METADATA_KEYS.includes(key)) {
      throw badRequest(`unknown metadata key ${JSON.stringify(key)}; allowed keys: ${METADATA_KEYS.join(', ')}`);
    }
    if (typeof item !== 'string') throw badRequest(`\`metadata.${key}\` must be a string`);
    const length = codePointLength(item);
    if (length > LIMITS.metadataValueMaxChars) {
      throw badRequest(`\`metadata.${key}\` must be at most ${LIMITS.metadataValueMaxChars} characters, got ${length}`);
    }
    if (!item.isWellFormed()) throw badRequest(`\`metadata.${key}\` must be valid Unicode (it holds a lone surrogate escape)`);
    metadata[key] = item;
  }
  return metadata;
}

/** The body of POST /conversations. */
export function parseCreateBody(body: unknown): { message: string; metadata: Record<string, string> } {
  const object = requireObject(body, ['message', 'metadata']);
  return { message: parseMessageText(object.message), metadata: parseMetadata(object.metadata) };
}

/** The body of a follow-up, and the text of an owner reply. */
export function parseFollowUpBody(body: unknown): { message: string } {
  const object = requireObject(body, ['message']);
  return { message: parseMessageText(object.message) };
}

/** The owner's reply text, held to the same rules as a client message. */
export function parseReplyText(text: string): string {
  return parseMessageText(text);
}
