// The rows the store reads, and the columns it selects for them: shared by store.ts and the
// tables beside it, so that every query returns the same shape.

import type { Author, ConversationStatus } from '../base/contract.ts';

/** A row of conversations; metadata is the JSON object as declared, unverified. */
export interface Conversation {
  readonly id: string;
  readonly status: ConversationStatus;
  readonly blocked: 0 | 1;
  readonly metadata: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly last_seq: number;
  readonly latest_owner_seq: number;
  /** the newest message's time, or the owner's later close or reopen */
  readonly changed_at: string;
  /** the identity that signed the opening (Web Bot Auth), or null */
  readonly verified_agent: string | null;
  /** whom a block of the sender names: 'agent:<identity>' or 'address:<keyed hash>'; null before migration 6 */
  readonly sender: string | null;
  /** the block of a sender or site that blocked it with them ('agent:…', 'site:…', 'address:…'); null: alone */
  readonly blocked_by: string | null;
  /** who closed it, while it is closed; null otherwise */
  readonly closed_by: ClosedBy | null;
}
export type ClosedBy = 'agent' | 'owner';
export interface Message {
  readonly seq: number;
  readonly author: Author;
  readonly message: string;
  readonly created_at: string;
  /** the identity that signed a client message, or null (always null for the owner's) */
  readonly verified_agent: string | null;
  // Every stored row has the columns below (null when unused); a message built to be stored may leave them out.
  /** a client's question: its choices as a JSON array of strings, and its reply-by time (ISO 8601, UTC) */
  readonly choices?: string | null;
  readonly reply_by?: string | null;
  /** an owner's answer with a choice: the question's seq, the choice's index (from 0) and its text */
  readonly choice_for_seq?: number | null;
  readonly choice_index?: number | null;
  readonly choice_text?: string | null;
}
export const CONVERSATION =
  'id, status, blocked, metadata, created_at, expires_at, last_seq, latest_owner_seq, changed_at, verified_agent, ' +
  'sender, blocked_by, closed_by';
export const MESSAGE =
  'seq, author, message, created_at, verified_agent, choices, reply_by, choice_for_seq, choice_index, choice_text';
