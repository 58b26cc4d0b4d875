// The owner's blocks: of a conversation (its credential gets 403), and of its sender, the verified
// agent that opened it or else its address's keyed hash (whose openings and follow-ups get 403).
// A block gives the day back: the blocked conversation's client messages of the day no longer
// count against the maximum, the pool or any share (rules/quotas.ts); an unblock counts them again.

import { isoTime } from '../base/time.ts';
import { refuse } from '../refusals/refusal.ts';
import type { Store } from '../store/store.ts';
import { existing } from './conversations.ts';
import { giveBackDay } from './quotas.ts';

/** Blocks (or unblocks) a conversation: its credential gets 403 saying so. */
export function setBlocked(store: Store, id: string, blocked: boolean, at = Date.now()): void {
  store.transaction(() => {
    const conversation = existing(store, id);
    // As close and reopen: asking for the state it is already in is a mistake the owner hears of.
    if (conversation.blocked === (blocked ? 1 : 0)) throw refuse(blocked ? 'already_blocked' : 'not_blocked', id);
    store.setBlocked(id, blocked);
    giveBackDay(store, id, at, blocked ? -1 : 1);
  });
}

/**
 * Blocks a conversation and its sender (`block --sender`), or lifts both; what the block names is
 * returned, for the owner to read: `agent:<identity>` or `address:…` (a keyed hash, never an address).
 */
export function setSenderBlocked(store: Store, id: string, blocked: boolean, at = Date.now()): string {
  return store.transaction(() => {
    const conversation = existing(store, id);
    const { sender } = conversation;
    if (sender === null) throw refuse('no_sender', id);
    const changed = blocked
      ? store.senderBlocks.block(sender, isoTime(at), id)
      : store.senderBlocks.unblock(sender);
    if (!changed) throw refuse(blocked ? 'sender_already_blocked' : 'sender_not_blocked', id);
    if (conversation.blocked !== (blocked ? 1 : 0)) {
      store.setBlocked(id, blocked);
      giveBackDay(store, id, at, blocked ? -1 : 1);
    }
    return sender;
  });
}
