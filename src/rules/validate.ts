// Validators: plain functions that return the clean value or throw the refusal naming what
// to fix. REST and MCP share them; "characters" are Unicode code points.

import {
  CREDENTIAL_PATTERN,
  KEY_PATTERN,
  KEY_RULE,
  BOUNDS,
  METADATA_KEYS,
  UUID_PATTERN,
} from '../base/contract.ts';
import { refuse } from '../refusals/refusal.ts';

/** A query string's parameters, as http/router.ts parseQuery read them. */
export type Query = ReadonlyMap<string, string>;
export type Kind = 'community' | 'tool';
export interface DirectoryQuery {
  readonly kind: Kind | null;
  readonly q: string;
  readonly category: string;
  readonly limit: number;
  readonly offset: number;
}

const UUID = new RegExp(UUID_PATTERN);
const KEY = new RegExp(KEY_PATTERN);
const CREDENTIAL = new RegExp(CREDENTIAL_PATTERN);
const MAX_SEQ = Number.MAX_SAFE_INTEGER;
// Control characters (Unicode Cc): C0, DEL and C1. A message may hold tab, line feed and
// carriage return; a metadata value none. They would reach the owner's terminal.
const MESSAGE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Counts Unicode code points, not UTF-16 units. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++; // no array of code points: messages are up to 8000 of them
  return count;
}

/** A whole number in [min, max], or the fallback when absent. Query text arrives as a string. */
export function integerIn(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw refuse('integer_out_of_range', name, max === MAX_SEQ ? `${min} or greater` : `from ${min} to ${max}`);
  }
  return number;
}

/** The search text `q`: at most 120 characters; empty means no filter. */
export function searchText(q: string): string {
  const length = codePointLength(q);
  if (length > BOUNDS.qMaxChars) throw refuse('query_too_long', BOUNDS.qMaxChars, length);
  return q;
}

/** `q`, `category`, `limit`, `offset` of the directory lists. */
export function parseDirectoryQuery(query: Query, kind: Kind | null): DirectoryQuery {
  const q = searchText(query.get('q') ?? '');
  const limit = integerIn(query.get('limit'), 'limit', BOUNDS.directoryLimitDefault, 1, BOUNDS.directoryLimitMax);
  return {
    kind,
    q,
    category: query.get('category') ?? '',
    limit,
    offset: integerIn(query.get('offset'), 'offset', 0, 0, BOUNDS.directoryOffsetMax),
  };
}

/** The `kind` filter: community or tool; absent means both. */
export function kindOf(value: unknown): Kind | null {
  if (value === undefined) return null;
  if (value !== 'community' && value !== 'tool') throw refuse('bad_kind');
  return value;
}

/** `after` (the last seq read) and `limit` of the history. */
export function historyRange(after: unknown, limit: unknown): { after: number; limit: number } {
  return {
    after: updatesAfter(after),
    limit: integerIn(limit, 'limit', BOUNDS.historyLimitDefault, 1, BOUNDS.historyLimitMax),
  };
}

/** `after` of the updates signal. */
export function updatesAfter(after: unknown): number {
  return integerIn(after, 'after', 0, 0, MAX_SEQ);
}

/** `wait` of a poll: whole seconds from 0 (answer at once) to `max`. */
export function waitSeconds(value: unknown, max: number): number {
  if (value === undefined) return 0;
  const number = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > max) {
    throw refuse('wait_too_long', max);
  }
  return number;
}

/** A conversation id; ids are compared in lower case. */
export function conversationId(raw: unknown): string {
  if (typeof raw !== 'string' || !UUID.test(raw)) throw refuse('bad_conversation_id');
  return raw.toLowerCase();
}

/** REST's Idempotency-Key header; the IETF draft's quoted form `"key"` is accepted. */
export function idempotencyKeyHeader(header: string | string[] | undefined): string {
  if (header === undefined) throw refuse('key_missing');
  if (Array.isArray(header) || header.includes(',')) throw refuse('key_repeated');
  return idempotencyKey(
    header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header,
  );
}

/** An idempotency key: 8 to 128 characters of A-Z a-z 0-9 _ . : - */
export function idempotencyKey(key: unknown, name = 'idempotency_key'): string {
  if (typeof key !== 'string') throw refuse('wrong_type', name, `a string of ${KEY_RULE}`);
  if (key.length < BOUNDS.idempotencyKeyMinLength || key.length > BOUNDS.idempotencyKeyMaxLength)
    throw refuse('key_length', key.length);
  if (!KEY.test(key)) throw refuse('key_characters');
  return key;
}

/** The members of a JSON object body (or of tool arguments); any other member is refused. */
export function fieldsOf(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refuse('not_an_object');
  const unknown = Object.keys(body).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw refuse('unknown_field', unknown, allowed.join(', '));
  return body as Record<string, unknown>;
}

/** A message: 1 to 8000 characters, not blank, no NUL, valid Unicode. */
export function messageText(value: unknown, name = 'message'): string {
  const what = `a string of 1 to ${BOUNDS.messageMaxChars} characters`;
  if (value === undefined) throw refuse('required', name, what);
  if (typeof value !== 'string') throw refuse('wrong_type', name, what);
  if (value.trim() === '') throw refuse('blank_message', name);
  const length = codePointLength(value);
  if (length > BOUNDS.messageMaxChars) throw refuse('too_long', name, BOUNDS.messageMaxChars, length);
  const control = MESSAGE_CONTROL.exec(value);
  if (control) throw refuse('control_character', name, escapedCodePoint(control[0]));
  if (!value.isWellFormed()) throw refuse('lone_surrogate', name);
  return value;
}

/** Self-declared metadata: any of agent_name, model, framework, each at most 500 characters. */
export function metadataOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw refuse('wrong_type', 'metadata', 'an object with any of agent_name, model, framework');
  const metadata: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!(METADATA_KEYS as readonly string[]).includes(key)) throw refuse('unknown_metadata_key', key);
    if (typeof item !== 'string') throw refuse('wrong_type', `metadata.${key}`, 'a string');
    const length = codePointLength(item);
    if (length > BOUNDS.metadataValueMaxChars)
      throw refuse('too_long', `metadata.${key}`, BOUNDS.metadataValueMaxChars, length);
    if (!item.isWellFormed()) throw refuse('lone_surrogate', `metadata.${key}`);
    const control = controlIn(item);
    if (control !== null) throw refuse('control_character', `metadata.${key}`, control);
    metadata[key] = item;
  }
  return metadata;
}

/** Whether a value has the form of a credential (64 lowercase hex characters). */
export function isCredentialShaped(value: unknown): value is string {
  return typeof value === 'string' && CREDENTIAL.test(value);
}

/** The first control character of a line of plain text, as a visible escape (such as \\u001b); null if none. */
export function controlIn(text: string): string | null {
  const control = ANY_CONTROL.exec(text);
  return control === null ? null : escapedCodePoint(control[0]);
}

/** A character as a visible escape, such as \\u001b, for a message that must not echo it. */
function escapedCodePoint(character: string): string {
  return `\\u${(character.codePointAt(0) as number).toString(16).padStart(4, '0')}`;
}
