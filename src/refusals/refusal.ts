// Refusals: a rule fails with `throw refuse(reason, ...args)`, naming an entry of the one
// catalogue; each door renders its message in its own terms (REST names headers, MCP names tool
// arguments), and one function maps any thrown value to a refusal.
//
// The catalogue: every refusal the service gives, its status, which operations can give it (the
// OpenAPI document describes each status from here), when it is given, and the message that tells
// the client what to fix. Each key is the refusal's stable reason, which every door's answers
// carry. Its entries stand in three files by what they refuse (a request as such, a conversation's
// rules, the protocol doors' own framing), merged here.

import { CONVERSATION_REFUSALS } from './conversation-refusals.ts';
import { PROTOCOL_REFUSALS } from './protocol-refusals.ts';
import { REQUEST_REFUSALS } from './request-refusals.ts';
import type { Headers, Scope } from './entry.ts';
import { REST_TERMS, type Terms } from './terms.ts';

export const CATALOGUE = { ...REQUEST_REFUSALS, ...CONVERSATION_REFUSALS, ...PROTOCOL_REFUSALS };

type Catalogue = typeof CATALOGUE;
export type Reason = keyof Catalogue;
type Args<R extends Reason> = Catalogue[R]['message'] extends (t: Terms, ...args: infer A) => string ? A : never;
type Entry = {
  readonly status: number;
  readonly on: readonly Scope[];
  readonly when: string;
  readonly headers?: ((...args: never[]) => Headers) | undefined;
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

/** The catalogue's entries that operations of these scopes can answer with `status`: each reason and when. */
export function refusalsFor(scopes: readonly Scope[], status: number): { reason: Reason; when: string }[] {
  return (Object.entries(CATALOGUE) as [Reason, Entry][])
    .filter(([, entry]) => entry.status === status && entry.on.some((on) => on === 'any' || scopes.includes(on)))
    .map(([reason, entry]) => ({ reason, when: entry.when }));
}

/** Every reason a client of the service can be given, and when (the owner script's own are left out). */
export function clientReasons(): { reason: Reason; when: string }[] {
  return (Object.entries(CATALOGUE) as [Reason, Entry][])
    .filter(([, entry]) => !entry.on.includes('owner'))
    .map(([reason, entry]) => ({ reason, when: entry.when }));
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
  if (primary === 5 || primary === 6) return { refusal: refuse('database_busy'), expected: false };
  if (primary === 8 || primary === 10 || primary === 13)
    return { refusal: refuse('database_unavailable'), expected: false };
  return { refusal: refuse('internal'), expected: false };
}

/** `{ "error": { "code", "reason", "message" } }`, as REST answers every refusal. */
export function errorBody(refusal: Refusal): string {
  return JSON.stringify({ error: { code: refusal.status, reason: refusal.reason, message: refusal.message } });
}
