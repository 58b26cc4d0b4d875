// The SQL of push delivery: where an agent asked to be told (a webhook, or A2A push
// notification configs), and the outbox of events waiting for delivery. The rules that
// write them are in rules/push.ts; the server's delivery loop (deliveries.ts) reads them.

import type { DatabaseSync } from 'node:sqlite';

export type TargetKind = 'webhook' | 'a2a';

/** A row of push_targets. */
export interface PushTarget {
  readonly id: string;
  readonly conversation_id: string;
  readonly kind: TargetKind;
  /** a2a: the config's id as its client knows it (unique within the task); null for a webhook */
  readonly config_id: string | null;
  readonly url: string;
  readonly secret: string | null;
  readonly token: string | null;
  readonly auth_scheme: string | null;
  readonly auth_credentials: string | null;
  readonly created_at: string;
  readonly last_attempt_at: string | null;
  readonly last_outcome: string | null;
  readonly failures: number;
}

/** An event due for delivery, with where it goes. */
export interface DueEvent {
  readonly id: string;
  readonly event: string;
  readonly created_at: number;
  readonly attempts: number;
  readonly target: PushTarget;
}

const TARGET =
  'id, conversation_id, kind, config_id, url, secret, token, auth_scheme, auth_credentials, created_at, ' +
  'last_attempt_at, last_outcome, failures';

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    insertTarget: sql(`INSERT INTO push_targets
      (id, conversation_id, kind, config_id, url, secret, token, auth_scheme, auth_credentials, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    targets: sql(`SELECT ${TARGET} FROM push_targets WHERE conversation_id = ? ORDER BY created_at, id`),
    targetsOfKind: sql(
      `SELECT ${TARGET} FROM push_targets WHERE conversation_id = ? AND kind = ? ORDER BY created_at, id`,
    ),
    deleteConfig: sql(`DELETE FROM push_targets WHERE conversation_id = ? AND kind = 'a2a' AND config_id = ?`),
    deleteTargetsOfKind: sql('DELETE FROM push_targets WHERE conversation_id = ? AND kind = ?'),
    recordAttempt: sql(`UPDATE push_targets SET last_attempt_at = ?, last_outcome = ?,
      failures = CASE WHEN ? THEN 0 ELSE failures + 1 END WHERE id = ?`),

    insertEvent: sql('INSERT INTO outbox (id, target_id, event, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)'),
    due: sql(`SELECT o.id, o.event, o.created_at, o.attempts, o.target_id
      FROM outbox o WHERE o.done_at IS NULL AND o.next_attempt_at <= ? ORDER BY o.next_attempt_at, o.id LIMIT ?`),
    targetById: sql(`SELECT ${TARGET} FROM push_targets WHERE id = ?`),
    scheduleRetry: sql(
      'UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ? AND done_at IS NULL',
    ),
    finish: sql('UPDATE outbox SET attempts = attempts + 1, done_at = ?, outcome = ? WHERE id = ? AND done_at IS NULL'),
    pending: sql('SELECT count(*) AS count FROM outbox WHERE target_id = ? AND done_at IS NULL'),
    pendingTotal: sql('SELECT count(*) AS count FROM outbox WHERE done_at IS NULL'),
    dropFinishedBefore: sql('DELETE FROM outbox WHERE done_at IS NOT NULL AND done_at < ?'),
  };
}

export class OutboxTable {
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
  }

  insertTarget(target: Omit<PushTarget, 'last_attempt_at' | 'last_outcome' | 'failures'>): void {
    const t = target;
    this.#sql.insertTarget.run(
      t.id,
      t.conversation_id,
      t.kind,
      t.config_id,
      t.url,
      t.secret,
      t.token,
      t.auth_scheme,
      t.auth_credentials,
      t.created_at,
    );
  }
  /** The conversation's targets, oldest first; of one kind only when `kind` is given. */
  targets(conversationId: string, kind?: TargetKind): PushTarget[] {
    const rows =
      kind === undefined ? this.#sql.targets.all(conversationId) : this.#sql.targetsOfKind.all(conversationId, kind);
    return rows as unknown as PushTarget[];
  }
  /** Deletes one A2A push config of the conversation (with its pending events); false when there was none. */
  deleteConfig(conversationId: string, configId: string): boolean {
    return Number(this.#sql.deleteConfig.run(conversationId, configId).changes) > 0;
  }
  /** Deletes every target of a kind of the conversation; returns how many there were. */
  deleteTargets(conversationId: string, kind: TargetKind): number {
    return Number(this.#sql.deleteTargetsOfKind.run(conversationId, kind).changes);
  }
  recordAttempt(targetId: string, at: string, outcome: string, succeeded: boolean): void {
    this.#sql.recordAttempt.run(at, outcome, succeeded ? 1 : 0, targetId);
  }

  insertEvent(id: string, targetId: string, event: string, at: number): void {
    this.#sql.insertEvent.run(id, targetId, event, at, at);
  }
  /** Events due at `now`, oldest first, with their targets; at most `limit`. */
  due(now: number, limit: number): DueEvent[] {
    const rows = this.#sql.due.all(now, limit) as unknown as (Omit<DueEvent, 'target'> & { target_id: string })[];
    return rows.flatMap(({ target_id, ...row }) => {
      const target = this.#sql.targetById.get(target_id) as PushTarget | undefined;
      return target ? [{ ...row, target }] : [];
    });
  }
  scheduleRetry(eventId: string, nextAttemptAt: number): void {
    this.#sql.scheduleRetry.run(nextAttemptAt, eventId);
  }
  /** Marks an event done: 'delivered', or the reason it was given up. */
  finish(eventId: string, at: number, outcome: string): void {
    this.#sql.finish.run(at, outcome, eventId);
  }
  pending(targetId: string): number {
    return (this.#sql.pending.get(targetId) as { count: number }).count;
  }
  /** Events not yet delivered or given up, for every target. */
  pendingTotal(): number {
    return (this.#sql.pendingTotal.get() as { count: number }).count;
  }
  dropFinishedBefore(at: number): void {
    this.#sql.dropFinishedBefore.run(at);
  }
}
