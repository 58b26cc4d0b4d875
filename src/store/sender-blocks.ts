// The SQL of the senders the owner blocked: a verified agent's identity ('agent:<identity>') or an
// address's keyed hash ('address:<hash>'), never an address as such. The rules refuse their
// openings and follow-ups (rules/conversations.ts); the owner's `block --sender` writes here.

import type { DatabaseSync } from 'node:sqlite';

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    isBlocked: sql('SELECT 1 FROM blocked_senders WHERE sender = ?'),
    block: sql(`INSERT INTO blocked_senders (sender, blocked_at, conversation_id) VALUES (?, ?, ?)
                ON CONFLICT (sender) DO NOTHING`),
    unblock: sql('DELETE FROM blocked_senders WHERE sender = ?'),
  };
}

export class SenderBlocks {
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
  }

  isBlocked(sender: string): boolean {
    return this.#sql.isBlocked.get(sender) !== undefined;
  }
  /** Blocks a sender; false when it was blocked already. `at`: ISO 8601. */
  block(sender: string, at: string, conversationId: string): boolean {
    return Number(this.#sql.block.run(sender, at, conversationId).changes) > 0;
  }
  /** Lifts a sender's block; false when there was none. */
  unblock(sender: string): boolean {
    return Number(this.#sql.unblock.run(sender).changes) > 0;
  }
}
