// All SQL of the service and the owner script: one named method per query or transaction,
// each statement prepared once when the database opens, every value a bound parameter. The
// rules that decide what to write live above this file, in conversations.ts.

import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Author, ConversationStatus } from '../base/contract.ts';
import { CONVERSATION, MESSAGE, type ClosedBy, type Conversation, type Message } from './rows.ts';
import { migrate } from './migrations.ts';
import { refuseForeignSchema } from './schema-check.ts';
import { copyDatabase, createPrivately } from './files.ts';
import { OutboxTable } from './outbox.ts';
import { ListingTable } from './listing-rows.ts';
import { OwnerQueries } from './owner-queries.ts';
import { ContactTable } from './contacts.ts';
import { UsedSignatures } from './used-signatures.ts';
import { QuotaCounts, SenderBlocks } from './senders.ts';
import { QuestionRows } from './questions.ts';

// The owner script and the server share the file: a write waits this long for the other's
// write to finish. Writes take milliseconds; waiting blocks the server's event loop.
const BUSY_TIMEOUT_MS = 5000;

export type { Author, ConversationStatus, Conversation, Message };

function arrays(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true);
  return statement;
}

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    begin: sql('BEGIN IMMEDIATE'), // takes the write lock up front
    commit: sql('COMMIT'),
    rollback: sql('ROLLBACK'),
    savepoint: sql('SAVEPOINT nested'),
    release: sql('RELEASE nested'),
    rollbackToSavepoint: sql('ROLLBACK TO nested'),
    // Asked on every authenticated request: a row as an array costs a third of a row as an object.
    dataVersion: arrays(sql('PRAGMA data_version')),
    totalChanges: arrays(sql('SELECT total_changes()')),

    conversationById: sql(`SELECT ${CONVERSATION} FROM conversations WHERE id = ?`),
    conversationByTokenHash: sql(`SELECT ${CONVERSATION} FROM conversations WHERE token_hash = unhex(?)`),
    creationKeyUsed: sql('SELECT 1 FROM conversations WHERE creation_key = ?'),
    insertConversation: sql(`INSERT INTO conversations
       (id, token_hash, creation_key, status, metadata, created_at, expires_at, last_seq, latest_owner_seq, changed_at,
        verified_agent, sender)
       VALUES (?, unhex(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    advanceConversation: sql(`UPDATE conversations SET last_seq = ?, latest_owner_seq = ?, status = ?, changed_at = ?
       WHERE id = ?`),
    setStatus: sql('UPDATE conversations SET status = ?, closed_by = ?, changed_at = ? WHERE id = ?'),
    setBlocked: sql('UPDATE conversations SET blocked = ?, blocked_by = ? WHERE id = ?'),
    deleteExpired: sql('DELETE FROM conversations WHERE expires_at <= ?'),

    insertMessage: sql(
      `INSERT INTO messages (conversation_id, seq, author, message, created_at, idempotency_key, verified_agent, sender,
         choices, reply_by, choice_for_seq, choice_index, choice_text)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    messageBySeq: sql(`SELECT ${MESSAGE} FROM messages WHERE conversation_id = ? AND seq = ?`),
    messageByKey: sql(`SELECT ${MESSAGE} FROM messages WHERE conversation_id = ? AND idempotency_key = ?`),
    messagesAfter: sql(`SELECT ${MESSAGE} FROM messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?`),
    newestMessages: sql(`SELECT ${MESSAGE}, idempotency_key AS key FROM messages
      WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?`),

    setting: sql('SELECT value FROM settings WHERE name = ?'),
    recordSetting: sql(`INSERT INTO settings (name, value) VALUES (?, ?)
                        ON CONFLICT (name) DO UPDATE SET value = excluded.value`),
    addSetting: sql('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),

    conversationCounts: sql('SELECT status, blocked, count(*) AS count FROM conversations GROUP BY status, blocked'),
    messageCount: sql('SELECT count(*) AS count FROM messages'),
  };
}

/** The database: opened (and created when missing), migrated, its statements prepared. */
export class Store {
  readonly db: DatabaseSync;
  readonly #sql: ReturnType<typeof prepareStatements>;
  /** The day's counts per sender and the last hour's openings (senders.ts). */
  readonly quotaCounts: QuotaCounts;
  /** Where agents asked to be told, and the events waiting for delivery (outbox.ts). */
  readonly outbox: OutboxTable;
  /** What only the owner script reads: the inbox, new client messages, ids by prefix (owner-queries.ts). */
  readonly owner: OwnerQueries;
  /** The senders the owner blocked, and the conversations blocked with them (senders.ts). */
  readonly senderBlocks: SenderBlocks;
  /** The agents the owner knows (contacts.ts). */
  readonly contacts: ContactTable;
  /** The signatures that authorized a stored message (used-signatures.ts). */
  readonly usedSignatures: UsedSignatures;
  /** The directory's listings, each stored as its JSON (listing-rows.ts). */
  readonly listings: ListingTable;
  /** A conversation's newest question and its answer (questions.ts). */
  readonly questions: QuestionRows;
  /** The schema version the file had when it was opened, before migrating (0: a new database). */
  readonly schemaFound: number;

  constructor(dbPath: string, busyTimeoutMs = BUSY_TIMEOUT_MS) {
    if (dbPath !== ':memory:') createPrivately(dbPath);
    this.db = new DatabaseSync(dbPath, { timeout: busyTimeoutMs, enableForeignKeyConstraints: true });
    try {
      this.db.exec('PRAGMA journal_mode = WAL'); // SQLite gives the -wal and -shm files the database's mode
      this.db.exec('PRAGMA synchronous = FULL'); // a 2xx on a POST means the commit reached the disk
      refuseForeignSchema(this.db); // before any migration runs: it could fire a file's own trigger
      this.schemaFound = migrate(this.db);
      this.#sql = prepareStatements(this.db);
      this.quotaCounts = new QuotaCounts(this.db);
      this.outbox = new OutboxTable(this.db);
      this.owner = new OwnerQueries(this.db);
      this.senderBlocks = new SenderBlocks(this.db);
      this.contacts = new ContactTable(this.db);
      this.usedSignatures = new UsedSignatures(this.db);
      this.questions = new QuestionRows(this.db);
      this.listings = new ListingTable(this.db, (fn) => this.transaction(fn));
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  close(): void {
    this.db.close();
  }

  /**
   * Copies the database online into `file` (created private) as one self-contained file;
   * returns what PRAGMA integrity_check says of the copy.
   */
  copyTo(file: string): Promise<string> {
    return copyDatabase(this.db, file);
  }

  /**
   * Runs fn in a write transaction (BEGIN IMMEDIATE takes the write lock up front), or, when
   * one is already open, in a savepoint of it: a failed fn undoes its own writes only.
   */
  transaction<T>(fn: () => T): T {
    const nested = this.db.isTransaction;
    (nested ? this.#sql.savepoint : this.#sql.begin).run();
    try {
      const result = fn();
      (nested ? this.#sql.release : this.#sql.commit).run();
      return result;
    } catch (err) {
      // A full disk or an I/O error may already have rolled the whole transaction back.
      if (nested && this.db.isTransaction) {
        this.#sql.rollbackToSavepoint.run();
        this.#sql.release.run();
      } else if (this.db.isTransaction) {
        this.#sql.rollback.run();
      }
      throw err;
    }
  }

  /**
   * Runs fn as transaction() would, and always rolls it back: what fn answers or throws, with
   * nothing written. A door asks it before outbound work that only an accepted write may cause.
   */
  rehearse<T>(fn: () => T): T {
    const nested = this.db.isTransaction;
    (nested ? this.#sql.savepoint : this.#sql.begin).run();
    try {
      return fn();
    } finally {
      if (nested && this.db.isTransaction) {
        this.#sql.rollbackToSavepoint.run();
        this.#sql.release.run();
      } else if (this.db.isTransaction) {
        this.#sql.rollback.run();
      }
    }
  }

  /** For group-commit.ts only: a write transaction spanning several transaction() calls. */
  beginWrite(): void {
    this.#sql.begin.run();
  }
  commitWrite(): void {
    this.#sql.commit.run();
  }
  rollbackWrite(): void {
    if (this.db.isTransaction) this.#sql.rollback.run();
  }
  inTransaction(): boolean {
    return this.db.isTransaction;
  }

  /** Rows this connection has changed since it opened: rises with every write, committed or not. */
  totalChanges(): number {
    return (this.#sql.totalChanges.get() as unknown as [number])[0];
  }

  /** Changes whenever another connection (the owner script) commits. */
  dataVersion(): number {
    return (this.#sql.dataVersion.get() as unknown as [number])[0];
  }

  conversationById(id: string): Conversation | undefined {
    return this.#sql.conversationById.get(id) as Conversation | undefined;
  }
  /** tokenHash: the credential's SHA-256 in hex */
  conversationByTokenHash(tokenHash: string): Conversation | undefined {
    return this.#sql.conversationByTokenHash.get(tokenHash) as Conversation | undefined;
  }
  creationKeyUsed(key: string): boolean {
    return this.#sql.creationKeyUsed.get(key) !== undefined;
  }
  insertConversation(conversation: Conversation, tokenHash: string, creationKey: string): void {
    const c = conversation;
    this.#sql.insertConversation.run(
      c.id,
      tokenHash,
      creationKey,
      c.status,
      c.metadata,
      c.created_at,
      c.expires_at,
      c.last_seq,
      c.latest_owner_seq,
      c.changed_at,
      c.verified_agent,
      c.sender,
    );
  }
  /** Records a new newest message: its seq, the owner's newest, the status it leaves, and its time. */
  advanceConversation(id: string, message: Message, latestOwnerSeq: number, status: ConversationStatus): void {
    this.#sql.advanceConversation.run(message.seq, latestOwnerSeq, status, message.created_at, id);
  }
  /** Sets a status the owner or the agent chose (and who closed it), and when (`at`, ISO 8601). */
  setStatus(id: string, status: ConversationStatus, at: string, closedBy: ClosedBy | null = null): void {
    this.#sql.setStatus.run(status, status === 'closed' ? closedBy : null, at, id);
  }
  /** Blocks or unblocks a conversation; `by`: the sender block that blocked it with its sender (null: alone). */
  setBlocked(id: string, blocked: boolean, by: string | null = null): void {
    this.#sql.setBlocked.run(blocked ? 1 : 0, blocked ? by : null, id);
  }
  /** Deletes conversations whose credential expired by `now`, with their messages (cascade). */
  deleteExpired(now: string): number {
    return Number(this.#sql.deleteExpired.run(now).changes);
  }

  /** Stores a message; a client's with the sender its quotas counted it against (null: the owner's). */
  insertMessage(conversationId: string, message: Message, idempotencyKey: string | null, sender: string | null): void {
    const { seq, author, message: text, created_at, verified_agent } = message;
    const { choices = null, reply_by = null, choice_for_seq = null, choice_index = null, choice_text = null } = message;
    const question = [choices, reply_by, choice_for_seq, choice_index, choice_text] as const;
    this.#sql.insertMessage.run(conversationId, seq, author, text, created_at, idempotencyKey, verified_agent, sender,
      ...question);
  }
  messageBySeq(conversationId: string, seq: number): Message | undefined {
    return this.#sql.messageBySeq.get(conversationId, seq) as Message | undefined;
  }
  messageByKey(conversationId: string, key: string): Message | undefined {
    return this.#sql.messageByKey.get(conversationId, key) as Message | undefined;
  }
  messagesAfter(conversationId: string, after: number, limit: number): Message[] {
    return this.#sql.messagesAfter.all(conversationId, after, limit) as unknown as Message[];
  }
  /** The newest `limit` messages, oldest first, each with the key it was sent with (null: none). */
  newestMessages(conversationId: string, limit: number): (Message & { key: string | null })[] {
    const rows = this.#sql.newestMessages.all(conversationId, limit) as unknown as (Message & { key: string | null })[];
    return rows.reverse();
  }
  /** A value the server recorded (its limits, the address key); undefined when never recorded. */
  setting(name: string): string | undefined {
    return (this.#sql.setting.get(name) as { value: string } | undefined)?.value;
  }
  recordSetting(name: string, value: string): void {
    this.#sql.recordSetting.run(name, value);
  }
  /** Records `value` unless the setting exists; returns the value that is recorded. */
  settingOnce(name: string, value: string): string {
    this.#sql.addSetting.run(name, value);
    return this.setting(name) as string;
  }

  /** Unblocked conversations by status, and blocked ones apart. */
  conversationCounts(): { open: number; answered: number; closed: number; blocked: number } {
    const counts = { open: 0, answered: 0, closed: 0, blocked: 0 };
    for (const row of this.#sql.conversationCounts.all() as {
      status: ConversationStatus;
      blocked: number;
      count: number;
    }[]) {
      if (row.blocked) counts.blocked += row.count;
      else counts[row.status] += row.count;
    }
    return counts;
  }
  messageCount(): number {
    return (this.#sql.messageCount.get() as { count: number }).count;
  }
}
