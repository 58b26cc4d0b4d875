// The owner's blocks: of a conversation alone (its credential gets 403), of its sender (the verified
// agent that opened it, or else its address's keyed hash) and of a whole site (every verified agent of
// one registrable domain). A blocked sender's openings and follow-ups get 403 (rules/conversations.ts),
// and every conversation it opened is blocked with it: one command undoes a flood, the polls held on
// them are answered (runtime/waits.ts), and lifting the block unblocks exactly those (but for any another
// block still covers: they stay blocked, named by it). A block gives the day back: a blocked
// conversation's client messages of the day no longer count against the maximum, the pools or any
// share (rules/quotas.ts); an unblock counts them again.

import { siteOf } from '../base/sites.ts';
import { isoTime } from '../base/time.ts';
import { refuse } from '../refusals/refusal.ts';
import type { BlockableConversation, BlockKey } from '../store/senders.ts';
import type { Store } from '../store/store.ts';
import { existing } from './conversations.ts';
import { giveBackDay } from './quotas.ts';

/** Blocks (or unblocks) a conversation alone: its credential gets 403 saying so. */
export function setBlocked(store: Store, id: string, blocked: boolean, at = Date.now()): void {
  store.transaction(() => {
    const conversation = existing(store, id);
    // As close and reopen: asking for the state it is already in is a mistake the owner hears of.
    if (conversation.blocked === (blocked ? 1 : 0)) throw refuse(blocked ? 'already_blocked' : 'not_blocked', id);
    store.setBlocked(id, blocked);
    giveBackDay(store, id, at, blocked ? -1 : 1);
  });
}

/** What a sender or site block did: what it names, whether it was new, and the conversations it changed. */
export interface SenderBlock {
  readonly sender: BlockKey;
  /** false: the sender was blocked (or, for an unblock, not blocked) already */
  readonly changed: boolean;
  /** the conversations blocked (or unblocked) with it, oldest first */
  readonly conversations: readonly string[];
}

/** Whom a block of a conversation's sender names: its verified opener, or its address's keyed hash. */
function senderOfConversation(store: Store, id: string): BlockKey {
  const { sender } = existing(store, id);
  if (sender === null) throw refuse('no_sender', id);
  return sender as BlockKey;
}

/** Blocks the sender of a conversation and every conversation it opened (that one included). */
export function blockSender(store: Store, id: string, at = Date.now()): SenderBlock {
  return store.transaction(() => {
    const sender = senderOfConversation(store, id);
    const changed = store.senderBlocks.block(sender, isoTime(at), id);
    return { sender, changed, conversations: blockAll(store, sender, store.senderBlocks.conversationsOf(sender), at) };
  });
}

/** Lifts the block of a conversation's sender, and unblocks the conversations it blocked. */
export function unblockSender(store: Store, id: string, at = Date.now()): SenderBlock {
  return store.transaction(() => {
    const sender = senderOfConversation(store, id);
    if (!store.senderBlocks.unblock(sender)) throw refuse('sender_not_blocked', id);
    return { sender, changed: true, conversations: unblockAll(store, sender, at) };
  });
}

/** Blocks every verified agent of a site (a name siteNamed gave) and every conversation they opened. */
export function blockSite(store: Store, site: string, at = Date.now()): SenderBlock {
  return store.transaction(() => {
    const sender = `site:${site}` as const;
    const changed = store.senderBlocks.block(sender, isoTime(at), ''); // named by the owner, from no conversation
    const ofSite = store.senderBlocks.signedConversations().filter((c) => siteOf(c.verified_agent as string) === site);
    return { sender, changed, conversations: blockAll(store, sender, ofSite, at) };
  });
}

/** Lifts a site's block, and unblocks the conversations it blocked. */
export function unblockSite(store: Store, site: string, at = Date.now()): SenderBlock {
  return store.transaction(() => {
    const sender = `site:${site}` as const;
    if (!store.senderBlocks.unblock(sender)) throw refuse('site_not_blocked', site);
    return { sender, changed: true, conversations: unblockAll(store, sender, at) };
  });
}

/** Blocks each conversation not blocked yet, naming the block, and gives its day back; their ids. */
function blockAll(store: Store, by: BlockKey, conversations: readonly BlockableConversation[], at: number): string[] {
  const blocked: string[] = [];
  for (const conversation of conversations) {
    if (conversation.blocked === 1) continue;
    store.setBlocked(conversation.id, true, by);
    giveBackDay(store, conversation.id, at, -1);
    blocked.push(conversation.id);
  }
  return blocked;
}

/**
 * Unblocks the conversations a block blocked, and counts their day again; their ids. One that another
 * block still covers (its opener's, or its opener's site's) stays blocked, named by that block.
 */
function unblockAll(store: Store, by: BlockKey, at: number): string[] {
  const unblocked: string[] = [];
  for (const id of store.senderBlocks.conversationsBlockedBy(by)) {
    const still = otherBlockOf(store, id, by);
    if (still !== null) {
      store.setBlocked(id, true, still); // its day stays given back
      continue;
    }
    store.setBlocked(id, false);
    giveBackDay(store, id, at, 1);
    unblocked.push(id);
  }
  return unblocked;
}

/** A block other than `lifted` that covers a conversation's opener: its sender's, or its site's; else null. */
function otherBlockOf(store: Store, id: string, lifted: BlockKey): BlockKey | null {
  const { sender, verified_agent: agent } = existing(store, id);
  const covering = [sender, agent === null ? null : `site:${siteOf(agent)}`];
  const still = covering.find((key) => key !== null && key !== lifted && store.senderBlocks.isBlocked(key));
  return (still ?? null) as BlockKey | null;
}
