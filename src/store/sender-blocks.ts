// The SQL of the senders the owner blocked: a verified agent's identity ('agent:<identity>'), a whole
// site ('site:<site>') or an address's keyed hash ('address:<hash>'), never an address as such; and
// of the conversations such a block blocks with it (their blocked_by names it). The rules refuse the
// blocked senders' openings and follow-ups (rules/conversations.ts); the owner's blocks write here.

import type { DatabaseSync } from 'node:sqlite';

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

function prepareStatements(db: DatabaseSync) {
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
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
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
