// The SQL of the day's counts: how many messages the day holds in all and per sender, and
// the openings of the last hour per address. The rules that judge these counts are in
// quotas.ts; they call these methods inside the write transaction of the message they count.

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
export type Sender = 'all' | 'owner' | 'unverified' | 'verified' | `conversation:${string}` | SenderKey;
type SenderCount = { readonly sender: SenderKey | null; readonly count: number };

function prepareStatements(db: DatabaseSync) {
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
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
  }

  /** How many messages `sender` stored on `day` (a UTC date). */
  count(day: string, sender: Sender): number {
    return (this.#sql.count.get(day, sender) as { count: number } | undefined)?.count ?? 0;
  }
  /** Adds `n` (1 by default; a negative n gives back, never below 0) to `sender`'s count of `day`. */
  add(day: string, sender: Sender, n = 1): void {
    this.#sql.add.run(day, sender, n, n);
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
