// The SQL of what is kept about senders. A sender is who a client message is from, as a key: a keyed
// address hash ('address:<hash>'), a verified agent ('agent:<identity>'), its site ('site:<site>') or,
// for the day's counts, a contact of the owner ('contact:…'). Kept: the day's counts, in all and per
// sender, and the openings of the last hour per address (rules/quotas.ts judges them, inside the write
// transaction of the message they count); and the senders the owner blocked, with the conversations
// such a block blocks with it (rules/blocks.ts writes them; rules/conversations.ts refuses their writes).

import type { DatabaseSync } from 'node:sqlite';

/**
 * What a client message was counted against: a verified stranger's site, a contact (no share), or a keyed
 * address; `agent:<identity>` is how messages stored before sites were counted.
 */
export type SenderKey = `site:${string}` | `contact:${string}` | `address:${string}` | `agent:${string}`;
/**
 * Who a count is for: the day's total, the owner, one conversation, one sender, or all unverified (or
 * all verified strangers') client messages together, the two pools.
 */
export type CountKey = 'all' | 'owner' | 'unverified' | 'verified' | `conversation:${string}` | SenderKey;
type SenderCount = { readonly sender: SenderKey | null; readonly count: number };

function countStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    count: sql('SELECT count FROM daily_usage WHERE day = ? AND sender = ?'),
    add: sql(`INSERT INTO daily_usage (day, sender, count) VALUES (?, ?, max(0, ?))
              ON CONFLICT (day, sender) DO UPDATE SET count = max(0, count + ?)`),
    dropBefore: sql('DELETE FROM daily_usage WHERE day < ?'),
    busiest: sql(`SELECT sender, count FROM daily_usage
                  WHERE day = ? AND sender >= ? AND sender < ? ORDER BY count DESC LIMIT 1`),
    openings: sql('SELECT count(*) AS count, min(at) AS oldest FROM recent_openings WHERE address = ? AND at > ?'),
    recordOpening: sql('INSERT INTO recent_openings (address, at) VALUES (?, ?)'),
    dropOpeningsBefore: sql('DELETE FROM recent_openings WHERE at <= ?'),
    // A conversation's client messages stored between two instants (ISO 8601), by the sender each counted against.
    clientMessagesBetween: sql(`SELECT sender, count(*) AS count FROM messages
      WHERE conversation_id = ? AND author = 'client' AND created_at >= ? AND created_at < ?
      GROUP BY sender`),
  };
}

export class QuotaCounts {
  readonly #sql: ReturnType<typeof countStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = countStatements(db);
  }

  /** How many messages `key` counts on `day` (a UTC date). */
  count(day: string, key: CountKey): number {
    return (this.#sql.count.get(day, key) as { count: number } | undefined)?.count ?? 0;
  }
  /** Adds `n` (1 by default; a negative n gives back, never below 0) to `key`'s count of `day`. */
  add(day: string, key: CountKey, n = 1): void {
    this.#sql.add.run(day, key, n, n);
  }
  /**
   * How many client messages of a conversation were stored in [from, to), per the sender each was
   * counted against (null: stored before senders were kept).
   */
  clientMessagesBetween(conversationId: string, from: string, to: string): SenderCount[] {
    return this.#sql.clientMessagesBetween.all(conversationId, from, to) as unknown as SenderCount[];
  }
  /** Drops the counts of every day before `day`. */
  dropBefore(day: string): void {
    this.#sql.dropBefore.run(day);
  }
  /** The conversation, address or site that stored most on `day`, with its count. */
  busiest(day: string, kind: 'conversation' | 'address' | 'site'): { sender: string; count: number } | undefined {
    // 'conversation:' to 'conversation;' spans every sender of that kind (';' follows ':').
    const row = this.#sql.busiest.get(day, `${kind}:`, `${kind};`) as { sender: string; count: number } | undefined;
    return row && { sender: row.sender, count: row.count };
  }

  /** The openings from `address` after `since` (epoch ms): how many, and when the oldest was. */
  openings(address: string, since: number): { count: number; oldest: number | null } {
    return this.#sql.openings.get(address, since) as { count: number; oldest: number | null };
  }
  recordOpening(address: string, at: number): void {
    this.#sql.recordOpening.run(address, at);
  }
  dropOpeningsBefore(at: number): void {
    this.#sql.dropOpeningsBefore.run(at);
  }
}

/** What a block of a sender names. */
export type BlockKey = `agent:${string}` | `site:${string}` | `address:${string}`;

/** A conversation as a sender block finds it. */
export interface BlockableConversation {
  readonly id: string;
  readonly status: 'open' | 'answered' | 'closed';
  readonly blocked: 0 | 1;
  readonly blocked_by: string | null;
  readonly verified_agent: string | null;
}

function blockStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    // one lookup for every sender a write may be refused for (unused places hold null)
    anyBlocked: sql('SELECT 1 FROM blocked_senders WHERE sender IN (?, ?, ?, ?) LIMIT 1'),
    block: sql(`INSERT INTO blocked_senders (sender, blocked_at, conversation_id) VALUES (?, ?, ?)
                ON CONFLICT (sender) DO NOTHING`),
    unblock: sql('DELETE FROM blocked_senders WHERE sender = ?'),
    all: sql('SELECT sender, blocked_at FROM blocked_senders ORDER BY sender'),
    bySender: sql(`SELECT id, status, blocked, blocked_by, verified_agent FROM conversations
                   WHERE sender = ? ORDER BY created_at, id`),
    signed: sql(`SELECT id, status, blocked, blocked_by, verified_agent FROM conversations
                 WHERE verified_agent IS NOT NULL ORDER BY created_at, id`),
    blockedBy: sql('SELECT id FROM conversations WHERE blocked_by = ? ORDER BY created_at, id'),
  };
}

export class SenderBlocks {
  readonly #sql: ReturnType<typeof blockStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = blockStatements(db);
  }

  /** Whether any of (at most four) senders is blocked; null and undefined places are skipped. */
  anyBlocked(senders: readonly (string | null | undefined)[]): boolean {
    const [a = null, b = null, c = null, d = null] = senders;
    return this.#sql.anyBlocked.get(a, b, c, d) !== undefined;
  }
  isBlocked(sender: string): boolean {
    return this.anyBlocked([sender]);
  }
  /** Blocks a sender; false when it was blocked already. `at`: ISO 8601. */
  block(sender: BlockKey, at: string, conversationId: string): boolean {
    return Number(this.#sql.block.run(sender, at, conversationId).changes) > 0;
  }
  /** Lifts a sender's block; false when there was none. */
  unblock(sender: BlockKey): boolean {
    return Number(this.#sql.unblock.run(sender).changes) > 0;
  }
  /** Every sender blocked, with when. */
  all(): { sender: BlockKey; blocked_at: string }[] {
    return this.#sql.all.all() as { sender: BlockKey; blocked_at: string }[];
  }
  /** The conversations opened by a sender ('agent:…' or 'address:…'), oldest first. */
  conversationsOf(sender: string): BlockableConversation[] {
    return this.#sql.bySender.all(sender) as unknown as BlockableConversation[];
  }
  /** Every conversation opened by a verified agent, oldest first: the rules find a site's among them. */
  signedConversations(): BlockableConversation[] {
    return this.#sql.signed.all() as unknown as BlockableConversation[];
  }
  /** The conversations a block of `sender` blocked. */
  conversationsBlockedBy(sender: BlockKey): string[] {
    return (this.#sql.blockedBy.all(sender) as { id: string }[]).map((row) => row.id);
  }
}
