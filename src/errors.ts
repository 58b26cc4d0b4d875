// The one place that turns an error into the contract's error body.

export type Headers = Record<string, string>;

/**
 * An error a client caused or must hear about: its status, a message saying what to fix.
 * Its body bytes are made on first use and kept, so a refusal with a fixed message can be
 * a constant that answers every time without serialising anything.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Headers;
  #body: Buffer | undefined;

  constructor(status: number, message: string, headers: Headers = {}) {
    // A refusal is expected, not a bug: capturing a stack trace would cost more than the rest of it.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = status;
    this.headers = headers;
  }

  /** `{ "error": { "code", "message" } }` as bytes. */
  get body(): Buffer {
    return (this.#body ??= Buffer.from(errorBody(this.status, this.message)));
  }
}

// A client told to wait is often told again within the same second (a flood from one
// address, a full day): the last 429 is answered again while its message and Retry-After
// are the same, without making a new error and its body.
let lastTooManyRequests: HttpError | undefined;

/** A 429 with its Retry-After in whole seconds, at least 1. */
export function tooManyRequests(message: string, retryAfterSeconds: number): HttpError {
  const seconds = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  const last = lastTooManyRequests;
  if (last !== undefined && last.headers['retry-after'] === seconds && last.message === message) return last;
  return (lastTooManyRequests = new HttpError(429, message, { 'retry-after': seconds }));
}

export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
};

/** `{ "error": { "code", "message" } }` as a JSON string. */
export function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: { code: status, message } });
}

const INTERNAL_ERROR_MESSAGE =
  'The server could not complete this request. Nothing was stored; retrying with the same Idempotency-Key is safe.';
const INTERNAL_ERROR = new HttpError(500, INTERNAL_ERROR_MESSAGE);
// The contract's status set has no 503: a database that cannot take the request now is a 500 with Retry-After.
const DATABASE_BUSY = new HttpError(500, 'The database is busy. Nothing was stored; retry shortly with the same Idempotency-Key.', {
  'retry-after': '2',
});
const DATABASE_UNAVAILABLE = new HttpError(
  500,
  'The database cannot store anything right now. Nothing was stored; retry later with the same Idempotency-Key.',
  { 'retry-after': '30' },
);

/**
 * Maps any thrown value to the refusal the client gets. Errors the database raises
 * because it is busy, full or read-only say so and carry Retry-After: nothing was
 * acknowledged, and a retry later makes sense. Anything else unexpected is a generic
 * 500 whose cause the caller logs; the client never sees the cause.
 */
export function classifyError(err: unknown): { refusal: HttpError; expected: boolean } {
  if (err instanceof HttpError) return { refusal: err, expected: true };
  const code = (err as { errcode?: number } | null)?.errcode;
  // SQLite primary result codes: 5 BUSY, 6 LOCKED, 8 READONLY, 10 IOERR, 13 FULL.
  const primary = typeof code === 'number' ? code & 0xff : undefined;
  if (primary === 5 || primary === 6) return { refusal: DATABASE_BUSY, expected: false };
  if (primary === 8 || primary === 10 || primary === 13) return { refusal: DATABASE_UNAVAILABLE, expected: false };
  return { refusal: INTERNAL_ERROR, expected: false };
}
