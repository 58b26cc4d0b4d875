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
}
export interface Message {
  readonly seq: number;
  readonly author: Author;
  readonly message: string;
  readonly created_at: string;
}
export const CONVERSATION =
  'id, status, blocked, metadata, created_at, expires_at, last_seq, latest_owner_seq, changed_at';
export const MESSAGE = 'seq, author, message, created_at';
