// Every refusal the service gives, in one catalogue: its status, which operations can give
// it (the OpenAPI document describes each status from here), and the message that tells
// the client what to fix. A rule fails with `throw refuse(reason, ...args)`; each door
// renders the message in its own terms (REST names headers, MCP names tool arguments).

export type Headers = Record<string, string>;

/** How a door names what a client sends. */
export const REST_TERMS = {
  key: 'Idempotency-Key',
  credential: 'exactly one header Authorization: Bearer <access_token>',
  field: 'field',
  param: 'query parameter',
  body: 'request body',
  id: 'conversation id in the path',
  directory: 'GET /api/v1/directory',
};
export type Terms = typeof REST_TERMS;
export const MCP_TERMS: Terms = {
  key: 'idempotency_key',
  credential: 'the access_token argument',
  field: 'argument',
  param: 'argument',
  body: 'tool arguments',
  id: 'argument `conversation_id`',
  directory: 'search_directory',
};

/** Which operations can answer a refusal; `owner` ones reach only the owner script. */
export type Scope =
  'any' | 'post' | 'open' | 'follow' | 'bearer' | 'list' | 'listing' | 'history' | 'updates' | 'page' | 'mcp' | 'owner';

const retryAfter = (seconds: number): Headers => ({ 'retry-after': String(Math.max(1, Math.ceil(seconds))) });
const CHALLENGE = { 'www-authenticate': 'Bearer' };

const CATALOGUE = {
  noRoute: {
    status: 404,
    on: ['any'],
    when: 'No route has this path.',
    message: (_t: Terms, method: string) =>
      `There is no ${method} route at this path. The API is described at /api/v1/contact-info.`,
  },
  methodNotAllowed: {
    status: 405,
    on: ['any'],
    when: 'The path has no such method.',
    message: (_t: Terms, method: string, pattern: string, allow: string) =>
      `${method} is not allowed on ${pattern}; use ${allow}.`,
    headers: (_m: string, _p: string, allow: string) => ({ allow }),
  },
  malformedHttp: {
    status: 400,
    on: ['any'],
    when: 'The request is not valid HTTP/1.1.',
    message: () => 'The request is not valid HTTP/1.1.',
  },
  headersTooLarge: {
    status: 431,
    on: ['any'],
    when: 'The headers exceed 16 KiB.',
    message: () => 'The request headers are too large; keep them under 16 KiB.',
  },
  requestTimeout: {
    status: 408,
    on: ['any'],
    when: 'The request did not arrive in time.',
    message: () => 'The request took too long to arrive; send it again.',
  },
  repeatedParameter: {
    status: 400,
    on: ['any'],
    when: 'A query parameter is repeated.',
    message: (t: Terms, name: string) => `The ${t.param} \`${name.slice(0, 60)}\` is repeated; send it once.`,
  },
  badPercentEncoding: {
    status: 400,
    on: ['any'],
    when: 'The path or query has malformed percent-encoding.',
    message: (_t: Terms, part: string) =>
      `The ${part} has malformed percent-encoding (a % must be followed by two hex digits).`,
  },
  credentialInUrl: {
    status: 400,
    on: ['any'],
    when: 'A credential is in the query string.',
    message: () =>
      'Never put the credential in a URL: send it only as the header Authorization: Bearer <access_token>.',
  },
  tooManyRequests: {
    status: 429,
    on: ['any'],
    when: 'Too many requests from one address (REQUEST_LIMIT_PER_MINUTE).',
    message: (_t: Terms, _wait: number) =>
      'Too many requests from your address; slow down and retry after the given seconds.',
    headers: retryAfter,
  },
  internal: {
    status: 500,
    on: ['any'],
    when: 'Something unexpected happened; nothing was stored.',
    message: (t: Terms) =>
      `The server could not complete this request. Nothing was stored; retrying with the same ${t.key} is safe.`,
  },
  databaseBusy: {
    status: 500,
    on: ['any'],
    when: 'The database stayed locked past the busy timeout (with Retry-After).',
    message: (t: Terms) => `The database is busy. Nothing was stored; retry shortly with the same ${t.key}.`,
    headers: () => ({ 'retry-after': '2' }),
  },
  databaseUnavailable: {
    status: 500,
    on: ['any'],
    when: 'The disk is full or the database is read-only (with Retry-After).',
    message: (t: Terms) =>
      `The database cannot store anything right now. Nothing was stored; retry later with the same ${t.key}.`,
    headers: () => ({ 'retry-after': '30' }),
  },

  notJsonContent: {
    status: 415,
    on: ['post'],
    when: 'The Content-Type is not application/json.',
    message: () => 'Send the body as JSON with the header Content-Type: application/json.',
  },
  bodyTooLarge: {
    status: 413,
    on: ['post'],
    when: 'The body is over 16384 bytes; the rest is not read.',
    message: (_t: Terms, limit: number) => `The body must be at most ${limit} bytes of JSON.`,
    headers: () => ({ connection: 'close' }),
  },
  notUtf8: {
    status: 400,
    on: ['post'],
    when: 'The body is not UTF-8.',
    message: () => 'The body must be UTF-8 encoded JSON.',
  },
  notJson: {
    status: 400,
    on: ['post'],
    when: 'The body is not valid JSON.',
    message: (_t: Terms, problem: string) => `The body is not valid JSON (${problem}).`,
  },
  notAnObject: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'The body is not a JSON object.',
    message: (t: Terms) => `The ${t.body} must be a JSON object such as {"message": "..."}.`,
  },
  unknownField: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'The body has a field the operation does not take.',
    message: (t: Terms, name: string, allowed: string) =>
      `The ${t.body} has an unknown ${t.field} ${JSON.stringify(name.slice(0, 60))}; allowed: ${allowed}.`,
  },
  required: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'A required field is missing.',
    message: (t: Terms, name: string, what: string) => `The ${t.field} \`${name}\` is required: ${what}.`,
  },
  wrongType: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'A field has the wrong type.',
    message: (t: Terms, name: string, what: string) => `The ${t.field} \`${name}\` must be ${what}.`,
  },
  blankMessage: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'The message is empty or only white space.',
    message: (t: Terms) => `The ${t.field} \`message\` must not be empty or only white space.`,
  },
  tooLong: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'A message or metadata value is over its length in Unicode code points.',
    message: (t: Terms, name: string, max: number, length: number) =>
      `The ${t.field} \`${name}\` must be at most ${max} characters, got ${length}.`,
  },
  nulCharacter: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'The message holds NUL.',
    message: (t: Terms) => `The ${t.field} \`message\` must not contain the NUL character (\\u0000).`,
  },
  loneSurrogate: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'A text holds a lone surrogate.',
    message: (t: Terms, name: string) =>
      `The ${t.field} \`${name}\` must be valid Unicode (it holds a lone surrogate escape).`,
  },
  unknownMetadataKey: {
    status: 400,
    on: ['open', 'mcp'],
    when: 'The metadata has a key other than agent_name, model, framework.',
    message: (t: Terms, key: string) =>
      `The ${t.field} \`metadata\` holds an unknown metadata key ${JSON.stringify(key.slice(0, 60))}; allowed keys: agent_name, model, framework.`,
  },
  keyMissing: {
    status: 400,
    on: ['post'],
    when: 'The Idempotency-Key header is missing.',
    message: () =>
      'The Idempotency-Key header is required: send a new unique key (8 to 128 characters of A-Z a-z 0-9 _ . : -) with each new message.',
  },
  keyRepeated: {
    status: 400,
    on: ['post'],
    when: 'More than one Idempotency-Key is sent.',
    message: () => 'Send exactly one Idempotency-Key header.',
  },
  keyLength: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'The Idempotency-Key is not 8 to 128 characters long.',
    message: (t: Terms, length: number) => `The ${t.key} must be 8 to 128 characters long, got ${length}.`,
  },
  keyCharacters: {
    status: 400,
    on: ['post', 'mcp'],
    when: 'The Idempotency-Key has characters other than A-Z a-z 0-9 _ . : -.',
    message: (t: Terms) => `The ${t.key} may hold only letters A-Z and a-z, digits, and _ . : -.`,
  },

  integerOutOfRange: {
    status: 400,
    on: ['list', 'history', 'updates', 'mcp'],
    when: '`limit`, `offset` or `after` is not a whole number in range.',
    message: (t: Terms, name: string, range: string) => `The ${t.param} \`${name}\` must be a whole number ${range}.`,
  },
  queryTooLong: {
    status: 400,
    on: ['list', 'page', 'mcp'],
    when: '`q` is over 120 characters.',
    message: (t: Terms, max: number, length: number) =>
      `The ${t.param} \`q\` must be at most ${max} characters, got ${length}.`,
  },
  badKind: {
    status: 400,
    on: ['page', 'mcp'],
    when: '`kind` is neither community nor tool.',
    message: (t: Terms) => `The ${t.param} \`kind\` must be community or tool.`,
  },
  noListing: {
    status: 404,
    on: ['listing'],
    when: 'No listing has this slug.',
    message: (t: Terms) => `No listing has this slug. ${t.directory} lists every slug.`,
  },

  badConversationId: {
    status: 400,
    on: ['bearer'],
    when: 'The conversation id is not a UUID.',
    message: (t: Terms) => `The ${t.id} must be a UUID such as 7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11.`,
  },
  noCredential: {
    status: 401,
    on: ['bearer'],
    when: 'No `Authorization: Bearer <64 lowercase hex>` header.',
    message: (t: Terms) =>
      `Send ${t.credential}, with the 64 lowercase hex characters returned when the conversation was opened.`,
    headers: () => CHALLENGE,
  },
  unknownCredential: {
    status: 401,
    on: ['bearer'],
    when: 'The credential matches no conversation.',
    message: () =>
      'This credential matches no conversation. Check that you sent the whole access_token from the creation response.',
    headers: () => CHALLENGE,
  },
  otherConversation: {
    status: 403,
    on: ['bearer'],
    when: "A credential is used on another conversation's id.",
    message: () => 'This credential belongs to another conversation; use it only with the id it was issued for.',
  },
  blocked: {
    status: 403,
    on: ['bearer'],
    when: 'The owner blocked the conversation.',
    message: () => 'The owner has blocked this conversation; it can no longer be used.',
  },
  expired: {
    status: 410,
    on: ['bearer'],
    when: 'The credential is past expires_at.',
    message: (_t: Terms, expiresAt: string) =>
      `This credential expired at ${expiresAt}. Open a new conversation to continue.`,
  },
  forbiddenOrigin: {
    status: 403,
    on: ['mcp'],
    when: 'The Origin or Host is not this service (DNS rebinding protection).',
    message: (_t: Terms, header: string) =>
      `This ${header} is not allowed to use this service's MCP endpoint; see MCP_ALLOWED_ORIGINS.`,
  },

  creationKeyUsed: {
    status: 409,
    on: ['open'],
    when: 'The creation key was used before; the credential is never issued again.',
    message: (t: Terms) =>
      `This ${t.key} already opened a conversation. Its credential was shown once and is never issued again; if the response was lost, open a new conversation with a new key.`,
  },
  followUpKeyConflict: {
    status: 409,
    on: ['follow'],
    when: 'The follow-up key was used for a different message.',
    message: (t: Terms) =>
      `This ${t.key} was already used for a different message in this conversation. Use a new key for each new message.`,
  },
  conversationClosed: {
    status: 410,
    on: ['follow'],
    when: 'The owner closed the conversation.',
    message: () =>
      'The owner closed this conversation; it can still be read, but takes no new messages. Open a new conversation to continue.',
  },
  dailyMaximum: {
    status: 429,
    on: ['open', 'follow'],
    when: 'The shared daily maximum is reached (Retry-After: until 00:00 UTC).',
    message: (t: Terms, limit: number, _wait: number) =>
      `The service's shared maximum of ${limit} messages per UTC day is reached. Nothing was stored; retry with the same ${t.key} after 00:00 UTC.`,
    headers: (_limit: number, wait: number) => retryAfter(wait),
  },
  tooManyOpenings: {
    status: 429,
    on: ['open'],
    when: 'Too many openings from one address in an hour (CREATE_LIMIT_PER_HOUR).',
    message: (_t: Terms, perHour: number, _wait: number) =>
      `At most ${perHour} conversations may be opened per hour from one address. Continue an existing conversation, or retry later.`,
    headers: (_perHour: number, wait: number) => retryAfter(wait),
  },
  pollTooSoon: {
    status: 429,
    on: ['updates'],
    when: 'Polled sooner than poll_after_seconds.',
    message: (_t: Terms, interval: number, _wait: number) =>
      `Poll this conversation at most once every ${interval} seconds (poll_after_seconds).`,
    headers: (_interval: number, wait: number) => retryAfter(wait),
  },

  noSuchConversation: {
    status: 404,
    on: ['owner'],
    when: '',
    message: (_t: Terms, prefix: string) => `No conversation has an id starting with ${prefix}.`,
  },
  ambiguousId: {
    status: 400,
    on: ['owner'],
    when: '',
    message: (_t: Terms, prefix: string) => `More than one conversation starts with ${prefix}; give more characters.`,
  },
  alreadyClosed: {
    status: 409,
    on: ['owner'],
    when: '',
    message: (_t: Terms, id: string) => `Conversation ${id} is already closed.`,
  },
  notClosed: {
    status: 409,
    on: ['owner'],
    when: '',
    message: (_t: Terms, id: string) => `Conversation ${id} is not closed.`,
  },
  replyToClosed: {
    status: 410,
    on: ['owner'],
    when: '',
    message: (_t: Terms, id: string) => `Conversation ${id} is closed; reopen it first.`,
  },
  ownerDailyMaximum: {
    status: 429,
    on: ['owner'],
    when: '',
    message: (_t: Terms, limit: number) =>
      `Today's shared maximum of ${limit} messages is reached; add --force to send anyway.`,
  },
} as const;

type Catalogue = typeof CATALOGUE;
export type Reason = keyof Catalogue;
type Args<R extends Reason> = Catalogue[R]['message'] extends (t: Terms, ...args: infer A) => string ? A : never;
type Entry = {
  readonly status: number;
  readonly on: readonly Scope[];
  readonly when: string;
  readonly headers?: (...args: never[]) => Headers;
  readonly message: (t: Terms, ...args: never[]) => string;
};

/**
 * A refusal: what a client (or the owner) must change. It is thrown like an error, but it is
 * an answer, not a fault: it does not extend Error, so it carries no stack trace.
 */
export class Refusal {
  readonly reason: Reason;
  readonly status: number;
  readonly message: string;
  readonly headers: Headers;
  readonly #args: readonly unknown[];

  constructor(reason: Reason, args: readonly unknown[]) {
    const entry = CATALOGUE[reason] as Entry;
    this.message = (entry.message as (t: Terms, ...a: unknown[]) => string)(REST_TERMS, ...args);
    this.reason = reason;
    this.status = entry.status;
    this.headers = entry.headers ? (entry.headers as (...a: unknown[]) => Headers)(...args) : {};
    this.#args = args;
  }

  /** The message as another door words it. */
  messageIn(terms: Terms): string {
    return ((CATALOGUE[this.reason] as Entry).message as (t: Terms, ...a: unknown[]) => string)(terms, ...this.#args);
  }
}

/** The refusal named `reason`, to throw. */
export function refuse<R extends Reason>(reason: R, ...args: Args<R>): Refusal {
  return new Refusal(reason, args);
}

/** The catalogue's entries that operations of these scopes can answer with `status`. */
export function refusalsFor(scopes: readonly Scope[], status: number): string[] {
  return Object.values(CATALOGUE as Record<string, Entry>)
    .filter((entry) => entry.status === status && entry.on.some((scope) => scope === 'any' || scopes.includes(scope)))
    .map((entry) => entry.when);
}

/**
 * Any thrown value as the refusal a client gets. Errors the database raises because it is
 * busy, full or read-only say so with Retry-After: nothing was acknowledged. Anything else
 * unexpected is a bare 500 whose cause only the server log hears of.
 */
export function asRefusal(err: unknown): { refusal: Refusal; expected: boolean } {
  if (err instanceof Refusal) return { refusal: err, expected: true };
  const code = (err as { errcode?: number } | null)?.errcode;
  // SQLite primary result codes: 5 BUSY, 6 LOCKED, 8 READONLY, 10 IOERR, 13 FULL.
  const primary = typeof code === 'number' ? code & 0xff : undefined;
  if (primary === 5 || primary === 6) return { refusal: refuse('databaseBusy'), expected: false };
  if (primary === 8 || primary === 10 || primary === 13)
    return { refusal: refuse('databaseUnavailable'), expected: false };
  return { refusal: refuse('internal'), expected: false };
}

/** `{ "error": { "code", "message" } }`, as REST answers every refusal. */
export function errorBody(refusal: Refusal): string {
  return JSON.stringify({ error: { code: refusal.status, message: refusal.message } });
}
