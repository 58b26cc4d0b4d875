// The SQL of the signatures that authorized a stored message (their SHA-256): a signature authorizes
// one write, so another write carrying it is refused (rules/conversations.ts). Each is kept until it
// expires, when it verifies nothing anyway; client writes are capped by the day's maximum, so the
// table is too (and by MAX_USED_SIGNATURES in rules/signatures.ts when the maximum is off).

import type { DatabaseSync } from 'node:sqlite';

/**
 * An upper bound of how many are kept, and the soonest expiry: rowids rise with each insert, and those
 * forgotten first are mostly the oldest. Each a subquery of its own, so that each is one step down a
 * b-tree: min() and max() together in one SELECT make SQLite read every row (10 ms at 100,000).
 */
export const HELD = `SELECT
  coalesce((SELECT max(rowid) FROM used_signatures) - (SELECT min(rowid) FROM used_signatures) + 1, 0) AS count,
  (SELECT min(expires_at) FROM used_signatures) AS soonest`;

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    find: sql('SELECT conversation_id, seq FROM used_signatures WHERE digest = unhex(?)'),
    record: sql('INSERT INTO used_signatures (digest, expires_at, conversation_id, seq) VALUES (unhex(?), ?, ?, ?)'),
    forgetExpired: sql('DELETE FROM used_signatures WHERE expires_at <= ?'),
    count: sql(HELD),
  };
}

export class UsedSignatures {
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
  }

  /** The message a signature (its SHA-256 in hex) authorized, if any. */
  find(digest: string): { conversation_id: string; seq: number } | undefined {
    return this.#sql.find.get(digest) as { conversation_id: string; seq: number } | undefined;
  }
  /** Records that a signature authorized a message; `expiresAt`: epoch ms. */
  record(digest: string, expiresAt: number, conversationId: string, seq: number): void {
    this.#sql.record.run(digest, expiresAt, conversationId, seq);
  }
  /** Forgets the signatures expired by `now` (epoch ms). */
  forgetExpired(now: number): void {
    this.#sql.forgetExpired.run(now);
  }
  /** How many are kept, at most, and when the soonest of them expires (epoch ms; null when none). */
  held(): { count: number; soonest: number | null } {
    return this.#sql.count.get() as { count: number; soonest: number | null };
  }
}
