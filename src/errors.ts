// The one place that turns an error into the contract's error body.

export type Headers = Record<string, string>;

/** An error a client caused or must hear about: its status, a message saying what to fix. */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Headers;

  constructor(status: number, message: string, headers: Headers = {}) {
    // A refusal is expected, not a bug: capturing a stack trace would cost more than the rest of it.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = status;
    this.headers = headers;
  }
}

/** A 429 with its Retry-After in whole seconds, at least 1. */
export function tooManyRequests(message: string, retryAfterSeconds: number): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new HttpError(429, message, { 'retry-after': String(seconds) });
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

export const INTERNAL_ERROR_MESSAGE =
  'The server could not complete this request. Nothing was stored; retrying with the same Idempotency-Key is safe.';

/**
 * Maps any thrown value to a status, headers and message. Errors the database raises
 * because it is busy, full or read-only stay a 500 (the contract's status set has no
 * 503) but say so and carry Retry-After: nothing was acknowledged, and a retry later
 * makes sense. Anything else unexpected is a 500 whose cause the caller logs; the
 * client gets a generic message, never the cause.
 */
export function classifyError(err: unknown): { status: number; message: string; headers: Headers; expected: boolean } {
  if (err instanceof HttpError) {
    return { status: err.status, message: err.message, headers: err.headers, expected: true };
  }
  const code = (err as { errcode?: number } | null)?.errcode;
  // SQLite primary result codes: 5 BUSY, 6 LOCKED, 8 READONLY, 10 IOERR, 13 FULL.
  const primary = typeof code === 'number' ? code & 0xff : undefined;
  if (primary === 5 || primary === 6) {
    return unavailable('The database is busy. Nothing was stored; retry shortly with the same Idempotency-Key.', 2);
  }
  if (primary === 8 || primary === 10 || primary === 13) {
    return unavailable('The database cannot store anything right now. Nothing was stored; retry later with the same Idempotency-Key.', 30);
  }
  return { status: 500, message: INTERNAL_ERROR_MESSAGE, headers: {}, expected: false };
}

function unavailable(message: string, retryAfter: number) {
  return { status: 500, message, headers: { 'retry-after': String(retryAfter) }, expected: false };
}
