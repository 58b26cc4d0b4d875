// The catalogue's refusals of requests as such (refusal.ts has them all): HTTP that is not
// understood, a body or a query that breaks the contract's bounds, a missing or wrong credential,
// a foreign origin, and the service's own faults.

import { KEY_RULE, BOUNDS, METADATA_KEYS } from '../base/contract.ts';
import { CHALLENGE, entry, retryAfter } from './entry.ts';
import type { Terms } from './terms.ts';

export const REQUEST_REFUSALS = {
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
    (wait: number) => ({ ...retryAfter(wait), connection: 'close' }), // its body is never read: the socket goes
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
  bad_choices: entry(400, ['post', 'mcp'],
    `\`choices\` is not ${BOUNDS.choicesMin} to ${BOUNDS.choicesMax} distinct strings of 1 to ` +
      `${BOUNDS.choiceMaxChars} characters of plain text.`,
    (t: Terms, name: string, problem: string) =>
      `The ${t.field} \`${name}\` ${problem}. Send ${BOUNDS.choicesMin} to ${BOUNDS.choicesMax} choices, each ` +
      `1 to ${BOUNDS.choiceMaxChars} characters of plain text, no two alike, or leave it out.`,
  ),
  bad_reply_by: entry(400, ['post', 'mcp'],
    `\`reply_by\` is not an RFC 3339 date-time with an offset from ${BOUNDS.replyByMinSeconds} seconds to ` +
      `${BOUNDS.replyByMaxDays} days ahead.`,
    (t: Terms, name: string, problem: string) =>
      `The ${t.field} \`${name}\` ${problem}. Send an RFC 3339 date-time with an offset (Z or +hh:mm), from ` +
      `${BOUNDS.replyByMinSeconds} seconds to ${BOUNDS.replyByMaxDays} days after you send the message, or ` +
      'leave it out.',
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

  signature_malformed: entry(400, ['signed'],
    'A Web Bot Auth signature whose headers do not parse, or lack a required parameter or component.',
    (_t: Terms, problem: string) =>
      `The request's Web Bot Auth signature cannot be read: ${problem}. Nothing was stored. Fix the ` +
      'Signature-Input, Signature and Signature-Agent headers, or send the request unsigned.',
  ),
  signature_invalid: entry(401, ['signed'],
    'A Web Bot Auth signature that is expired, not yet valid, of another algorithm, made for another ' +
      'host, of a key its directory does not hold, or that does not verify.',
    (_t: Terms, problem: string) =>
      `The request's Web Bot Auth signature is not valid: ${problem}. Nothing was stored.`,
  ),
  key_directory_unavailable: entry(503, ['signed'],
    "The signing agent's key directory could not be fetched (with Retry-After).",
    (_t: Terms, problem: string, _wait: number) =>
      `The signature's key cannot be checked now: ${problem}. Nothing was stored; retry after the given seconds.`,
    (_problem: string, wait: number) => retryAfter(wait),
  ),
};
