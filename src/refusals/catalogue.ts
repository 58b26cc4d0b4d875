// Every refusal the service gives, in one catalogue: its status, which operations can give
// it (the OpenAPI document describes each status from here), when it is given, and the
// message that tells the client what to fix, worded by each door in its own terms.
// refusal.ts holds the mechanism: `throw refuse(reason, ...args)`.

import { KEY_RULE, BOUNDS, METADATA_KEYS } from '../base/contract.ts';
import type { Terms } from './terms.ts';

export type Headers = Record<string, string>;

/** Which operations can answer a refusal; `owner` ones reach only the owner script. */
export type Scope =
  | 'any'
  | 'post'
  | 'open'
  | 'follow'
  | 'bearer'
  | 'list'
  | 'listing'
  | 'history'
  | 'updates'
  | 'webhook'
  | 'a2a'
  | 'page'
  | 'mcp'
  | 'metrics'
  | 'owner';

const retryAfter = (seconds: number): Headers => ({ 'retry-after': String(Math.max(1, Math.ceil(seconds))) });
const CHALLENGE = { 'www-authenticate': 'Bearer' };

export const CATALOGUE = {
  no_route: entry(404, ['any'], 'No route has this path.',
    (_t: Terms, method: string) =>
      `There is no ${method} route at this path. The API is described at /api/v1/contact-info.`,
  ),
  method_not_allowed: entry(405, ['any'], 'The path has no such method.',
    (_t: Terms, method: string, pattern: string, allow: string) =>
      `${method} is not allowed on ${pattern}; use ${allow}.`,
    (_m: string, _p: string, allow: string) => ({ allow }),
  ),
  malformed_http: entry(400, ['any'], 'The request is not valid HTTP/1.1.',
    () => 'The request is not valid HTTP/1.1.',
  ),
  host_header: entry(400, ['any'], 'An HTTP/1.1 request has no Host header, or more than one.',
    () => 'Send exactly one Host header: HTTP/1.1 requires it.',
  ),
  expectation_failed: entry(417, ['any'], 'An Expect header other than 100-continue.',
    () => 'Only Expect: 100-continue is understood; send the request without this Expect header.',
    () => ({ connection: 'close' }), // the body it holds back is never read
  ),
  headers_too_large: entry(431, ['any'], 'The headers exceed 16 KiB.',
    () => 'The request headers are too large; keep them under 16 KiB.',
  ),
  request_timeout: entry(408, ['any'], 'The request did not arrive in time.',
    () => 'The request took too long to arrive; send it again.',
  ),
  repeated_parameter: entry(400, ['any'], 'A query parameter is repeated.',
    // the name is not echoed: no error repeats any part of a query, which may hold a credential
    (t: Terms) => `A ${t.param} is repeated; send each one once.`,
  ),
  bad_percent_encoding: entry(400, ['any'], 'The path or query has malformed percent-encoding.',
    (_t: Terms, part: string) => `The ${part} has malformed percent-encoding (a % must be followed by two hex digits).`,
  ),
  credential_in_url: entry(400, ['any'], 'A credential is in the query string.',
    (t: Terms) => `Never put the credential in a URL: send it only as ${t.credential}.`,
  ),
  too_many_requests: entry(429, ['any'], 'Too many requests from one address (REQUEST_LIMIT_PER_MINUTE).',
    (_t: Terms, _wait: number) => 'Too many requests from your address; slow down and retry after the given seconds.',
    retryAfter,
  ),
  internal: entry(500, ['any'], 'Something unexpected happened; nothing was stored.',
    (t: Terms) =>
      `The server could not complete this request. Nothing was stored; retrying with the same ${t.key} is safe.`,
  ),
  database_busy: entry(500, ['any'], 'The database stayed locked past the busy timeout (with Retry-After).',
    (t: Terms) => `The database is busy. Nothing was stored; retry shortly with the same ${t.key}.`,
    () => ({ 'retry-after': '2' }),
  ),
  database_unavailable: entry(500, ['any'], 'The disk is full or the database is read-only (with Retry-After).',
    (t: Terms) =>
      `The database cannot store anything right now. Nothing was stored; retry later with the same ${t.key}.`,
    () => ({ 'retry-after': '30' }),
  ),

  not_json_content: entry(415, ['post'], 'The Content-Type is not application/json.',
    () => 'Send the body as JSON with the header Content-Type: application/json.',
  ),
  body_too_large: entry(413, ['post'], 'The body is over 16384 bytes; the rest is not read.',
    (_t: Terms, limit: number) => `The body must be at most ${limit} bytes of JSON.`,
    () => ({ connection: 'close' }),
  ),
  not_utf8: entry(400, ['post'], 'The body is not UTF-8.',
    () => 'The body must be UTF-8 encoded JSON.',
  ),
  not_json: entry(400, ['post'], 'The body is not valid JSON.',
    (_t: Terms, problem: string) => `The body is not valid JSON (${problem}).`,
  ),
  not_an_object: entry(400, ['post', 'mcp'], 'The body is not a JSON object.',
    (t: Terms) => `The ${t.body} must be a JSON object such as {"message": "..."}.`,
  ),
  unknown_field: entry(400, ['post', 'mcp'], 'The body has a field the operation does not take.',
    (t: Terms, name: string, allowed: string) =>
      `There is an unknown ${t.field} ${JSON.stringify(name.slice(0, 60))} in the ${t.body}; allowed: ${allowed}.`,
  ),
  required: entry(400, ['post', 'mcp'], 'A required field is missing.',
    (t: Terms, name: string, what: string) => `The ${t.field} \`${name}\` is required: ${what}.`,
  ),
  wrong_type: entry(400, ['post', 'mcp'], 'A field has the wrong type.',
    (t: Terms, name: string, what: string) => `The ${t.field} \`${name}\` must be ${what}.`,
  ),
  blank_message: entry(400, ['post', 'mcp'], 'The message is empty or only white space.',
    (t: Terms, name: string) => `The ${t.field} \`${name}\` must not be empty or only white space.`,
  ),
  too_long: entry(400, ['post', 'mcp'], 'A message or metadata value is over its length in Unicode code points.',
    (t: Terms, name: string, max: number, length: number) =>
      `The ${t.field} \`${name}\` must be at most ${max} characters, got ${length}.`,
  ),
  control_character: entry(400, ['post', 'mcp'],
    'A message holds a control character other than tab, line feed and carriage return, ' +
      'or a metadata value holds one.',
    (t: Terms, name: string, found: string) =>
      `The ${t.field} \`${name}\` must not contain control characters (found ${found}); ` +
      (name === 'message' ? 'only tab, line feed and carriage return are allowed.' : 'send plain text on one line.'),
  ),
  lone_surrogate: entry(400, ['post', 'mcp'], 'A text holds a lone surrogate.',
    (t: Terms, name: string) => `The ${t.field} \`${name}\` must be valid Unicode (it holds a lone surrogate escape).`,
  ),
  unknown_metadata_key: entry(400, ['open', 'mcp'], `The metadata has a key other than ${METADATA_KEYS.join(', ')}.`,
    (t: Terms, key: string) =>
      `The ${t.field} \`metadata\` holds an unknown metadata key ${JSON.stringify(key.slice(0, 60))}; ` +
      `allowed keys: ${METADATA_KEYS.join(', ')}.`,
  ),
  key_missing: entry(400, ['post'], 'The Idempotency-Key header is missing.',
    () =>
      `The Idempotency-Key header is required: send a new unique key (${KEY_RULE}) with each new message; ` +
      'a random UUID is a good one.',
  ),
  key_repeated: entry(400, ['post'], 'More than one Idempotency-Key is sent.',
    () => 'Send exactly one Idempotency-Key header.',
  ),
  key_length: entry(400, ['post', 'mcp'], 'The Idempotency-Key is not 8 to 128 characters long.',
    (t: Terms, length: number) =>
      `The ${t.key} must be ${BOUNDS.idempotencyKeyMinLength} to ${BOUNDS.idempotencyKeyMaxLength} characters long, ` +
      `got ${length}.`,
  ),
  key_characters: entry(400, ['post', 'mcp'], 'The Idempotency-Key has characters other than A-Z a-z 0-9 _ . : -.',
    (t: Terms) => `The ${t.key} may hold only letters A-Z and a-z, digits, and _ . : -.`,
  ),

  integer_out_of_range: entry(400, ['list', 'history', 'updates', 'mcp'],
    '`limit`, `offset` or `after` is not a whole number in range.',
    (t: Terms, name: string, range: string) => `The ${t.param} \`${name}\` must be a whole number ${range}.`,
  ),
  query_too_long: entry(400, ['list', 'page', 'mcp'], '`q` is over 120 characters.',
    (t: Terms, max: number, length: number) => `The ${t.param} \`q\` must be at most ${max} characters, got ${length}.`,
  ),
  bad_kind: entry(400, ['page', 'mcp'], '`kind` is neither community nor tool.',
    (t: Terms) => `The ${t.param} \`kind\` must be community or tool.`,
  ),
  no_listing: entry(404, ['listing'], 'No listing has this slug.',
    (t: Terms) => `No listing has this slug. ${t.directory} lists every slug.`,
  ),

  bad_conversation_id: entry(400, ['bearer'], 'The conversation id is not a UUID.',
    (t: Terms) => `The ${t.id} must be a UUID such as 7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11.`,
  ),
  no_credential: entry(401, ['bearer'], 'No `Authorization: Bearer <64 lowercase hex>` header.',
    (t: Terms) =>
      `Send ${t.credential}, with the 64 lowercase hex characters returned when the conversation was opened.`,
    () => CHALLENGE,
  ),
  unknown_credential: entry(401, ['bearer'], 'The credential matches no conversation.',
    (t: Terms) => `This credential matches no conversation. Check that you sent the whole ${t.token}.`,
    () => CHALLENGE,
  ),
  other_conversation: entry(403, ['bearer'], "A credential is used on another conversation's id.",
    () => 'This credential belongs to another conversation; use it only with the id it was issued for.',
  ),
  blocked: entry(403, ['bearer'], 'The owner blocked the conversation.',
    () => 'The owner has blocked this conversation; it can no longer be used.',
  ),
  expired: entry(410, ['bearer'], 'The credential is past expires_at.',
    (_t: Terms, expiresAt: string) => `This credential expired at ${expiresAt}. Open a new conversation to continue.`,
  ),
  forbidden_origin: entry(403, ['mcp'], 'The Origin is not this service or an allowed one (DNS rebinding protection).',
    (_t: Terms, endpoint: string, setting: string) =>
      `This Origin may not call ${endpoint}: it is not this service's own origin. ` +
      `The owner can allow it by adding it to ${setting}.`,
  ),
  forbidden_host: entry(403, ['mcp'], 'The Host is not this service (DNS rebinding protection).',
    (_t: Terms, endpoint: string) =>
      `This Host header does not name this service, so ${endpoint} refuses it. ` +
      'Send the host of the service\'s public URL (the owner sets it as PUBLIC_BASE_URL).',
  ),

  creation_key_used: entry(409, ['open'], 'The creation key was used before; the credential is never issued again.',
    (t: Terms) =>
      `This ${t.key} already opened a conversation. Its credential was shown once and is never issued again; ` +
      'if the response was lost, open a new conversation with a new key.',
  ),
  follow_up_key_conflict: entry(409, ['follow'], 'The follow-up key was used for a different message.',
    (t: Terms) =>
      `This ${t.key} was already used for a different message in this conversation. ` +
      `Use a new ${t.key} for each new message.`,
  ),
  conversation_closed: entry(410, ['follow'], 'The owner closed the conversation.',
    () =>
      'The owner closed this conversation; it can still be read, but takes no new messages. ' +
      'Open a new conversation to continue.',
  ),
  daily_maximum: entry(429, ['open', 'follow'],
    'The shared daily maximum, less the reserve kept for the owner, is reached (Retry-After: until 00:00 UTC).',
    (t: Terms, limit: number, reserve: number, _wait: number) =>
      `The service's shared maximum of ${limit} messages per UTC day is reached` +
      (reserve > 0 ? ` for agents (the last ${reserve} are kept for the owner's replies)` : '') +
      `. Nothing was stored; retry with the same ${t.key} after 00:00 UTC.`,
    (_limit: number, _reserve: number, wait: number) => retryAfter(wait),
  ),
  conversation_share: entry(429, ['follow'],
    "The conversation's share of the day is used (Retry-After: until 00:00 UTC).",
    (t: Terms, share: number, _wait: number) =>
      `This conversation has stored its share of ${share} messages for this UTC day, the most one conversation ` +
      `may store. Nothing was stored; retry with the same ${t.key} after 00:00 UTC.`,
    (_share: number, wait: number) => retryAfter(wait),
  ),
  address_share: entry(429, ['open', 'follow'],
    "The client address's share of the day is used (Retry-After: until 00:00 UTC).",
    (t: Terms, share: number, _wait: number) =>
      `Your address has stored its share of ${share} messages for this UTC day (openings and follow-ups together), ` +
      `the most one address may store. Nothing was stored; retry with the same ${t.key} after 00:00 UTC.`,
    (_share: number, wait: number) => retryAfter(wait),
  ),
  too_many_openings: entry(429, ['open'], 'Too many openings from one address in an hour (CREATE_LIMIT_PER_HOUR).',
    (_t: Terms, perHour: number, _wait: number) =>
      `At most ${perHour} conversations may be opened per hour from one address. ` +
      'Continue an existing conversation, or retry later.',
    (_perHour: number, wait: number) => retryAfter(wait),
  ),
  poll_too_soon: entry(429, ['updates'], 'Polled sooner than poll_after_seconds.',
    (t: Terms, interval: number, _wait: number) =>
      `Poll this conversation at most once every ${interval} seconds (${t.pollField}).`,
    (_interval: number, wait: number) => retryAfter(wait),
  ),

  too_many_push_configs: entry(400, ['a2a'], 'The task holds the most push notification configs it may.',
    (_t: Terms, max: number) => `A task holds at most ${max} push notification configs; delete one first.`,
  ),
  no_push_config: entry(404, ['a2a'], 'No push notification config of this task has that id.',
    () => 'This task has no push notification config with that id.',
  ),
  metrics_credential: entry(401, ['metrics'], 'GET /metrics without the METRICS_TOKEN as its Bearer credential.',
    () => 'Send the METRICS_TOKEN as Authorization: Bearer <token>.',
    () => ({ 'www-authenticate': 'Bearer' }),
  ),
  no_webhook: entry(404, ['webhook'], 'The conversation has no webhook registered.',
    () => 'This conversation has no webhook. Register one with PUT and {"url": "https://…"}.',
  ),
  url_refused: entry(400, ['webhook'], 'The webhook URL breaks an outbound rule (https, a public address).',
    (t: Terms, rule: string) => `The ${t.field} \`url\` cannot be used: ${rule}.`,
  ),
  wait_too_long: entry(400, ['updates', 'mcp'], '`wait` is not a whole number of seconds in range.',
    (t: Terms, max: number) =>
      `The ${t.param} \`wait\` must be a whole number of seconds from 0 to ${max}: ` +
      'longer waits would outlast the poll interval, and proxies and clients give up on them.',
  ),

  no_such_conversation: entry(404, ['owner'], '',
    (_t: Terms, prefix: string) => `No conversation has an id starting with ${prefix}.`,
  ),
  ambiguous_id: entry(400, ['owner'], '',
    (_t: Terms, prefix: string) => `More than one conversation starts with ${prefix}; give more characters.`,
  ),
  already_closed: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is already closed.`,
  ),
  not_closed: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is not closed.`,
  ),
  already_blocked: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is already blocked.`,
  ),
  not_blocked: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is not blocked.`,
  ),
  reply_to_closed: entry(410, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is closed; reopen it first.`,
  ),
  owner_daily_maximum: entry(429, ['owner'], '',
    (_t: Terms, limit: number) => `Today's shared maximum of ${limit} messages is reached; add --force to send anyway.`,
  ),
};

/** One entry: its status, the operations that can answer it, when, its message, and its headers. */
function entry<A extends unknown[]>(
  status: number,
  on: readonly Scope[],
  when: string,
  message: (t: Terms, ...args: A) => string,
  headers?: (...args: A) => Headers,
) {
  return { status, on, when, message, headers };
}
