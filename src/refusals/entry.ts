// The shape of a catalogue entry (refusal.ts): its status, the operations that can answer
// it, when it is given, its message worded in a door's terms, and the headers it carries.

import type { Terms } from './terms.ts';

export type Headers = Record<string, string>;

/** Which operations can answer a refusal; `owner` ones reach only the owner script. */
export type Scope =
  | 'any'
  | 'post'
  | 'open'
  | 'follow'
  | 'bearer'
  | 'signed'
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

/** One entry: its status, the operations that can answer it, when, its message, and its headers. */
export function entry<A extends unknown[]>(
  status: number,
  on: readonly Scope[],
  when: string,
  message: (t: Terms, ...args: A) => string,
  headers?: (...args: A) => Headers,
) {
  return { status, on, when, message, headers };
}

/** Retry-After in whole seconds, at least 1. */
export const retryAfter = (seconds: number): Headers => ({ 'retry-after': String(Math.max(1, Math.ceil(seconds))) });
/** The challenge a 401 carries. */
export const CHALLENGE = { 'www-authenticate': 'Bearer' };
