// All SQL of the service and the owner script. Statements are prepared once when the
// database opens; every value is a bound parameter.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

// The owner script and the server share the file: a write waits this long for the other's
// write to finish. Writes take milliseconds; waiting blocks the server's event loop.
const BUSY_TIMEOUT_MS = 5000;

// Ordered, append-only: a released migration is never edited. Each runs in one transaction.
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE listings (
     slug    TEXT PRIMARY KEY,
     listing TEXT NOT NULL -- the whole Listing as JSON, fields in the spec's order
   ) STRICT;

   CREATE TABLE conversations (
     id               TEXT PRIMARY KEY,
     token_hash       BLOB NOT NULL UNIQUE, -- SHA-256 of the credential; the credential itself is never stored
     creation_key     TEXT NOT NULL UNIQUE, -- Idempotency-Key of the opening request, kept as long as the conversation
     status           TEXT NOT NULL CHECK (status IN ('open', 'answered', 'closed')),
     blocked          INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
     metadata         TEXT NOT NULL, -- JSON object, as declared, unverified
     created_at       TEXT NOT NULL,
     expires_at       TEXT NOT NULL,
     last_seq         INTEGER NOT NULL,
     latest_owner_seq INTEGER NOT NULL DEFAULT 0
   ) STRICT;

   CREATE TABLE messages (
     conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
     seq             INTEGER NOT NULL,
     author          TEXT NOT NULL CHECK (author IN ('client', 'owner')),
     message         TEXT NOT NULL,
     created_at      TEXT NOT NULL,
     idempotency_key TEXT, -- follow-ups only; scoped to the conversation
     PRIMARY KEY (conversation_id, seq)
   ) STRICT, WITHOUT ROWID;

   CREATE UNIQUE INDEX messages_by_idempotency_key
     ON messages (conversation_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

   CREATE TABLE daily_counts (
     day   TEXT PRIMARY KEY, -- UTC date, YYYY-MM-DD
     count INTEGER NOT NULL
   ) STRICT;`,
];

export type ConversationStatus = 'open' | 'answered' | 'closed';
export type Author = 'client' | 'owner';

/** Read-only: the server shares one object between the requests that use the same credential. */
export interface ConversationRow {
  readonly id: string;
  readonly status: ConversationStatus;
  readonly blocked: number;
  readonly metadata: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly last_seq: number;
  readonly latest_owner_seq: number;
}

export interface MessageRow {
  seq: number;
  author: Author;
  message: string;
  created_at: string;
}

export interface InboxRow extends ConversationRow {
  last_message_at: string;
  last_message: string;
  last_author: Author;
}

/** The result of a write that counts toward the shared daily maximum. */
export type CountedWrite<T> = { ok: true; value: T } | { ok: false; reason: 'daily-limit' | 'closed' };

/** What became of a client's opening, decided inside the transaction. */
export type OpeningResult = { kind: 'created'; message: MessageRow } | { kind: 'key-used' } | { kind: 'daily-limit' };

/** What became of a follow-up, decided inside the transaction, in the contract's order. */
export type FollowUpResult =
  | { kind: 'created' | 'duplicate'; message: MessageRow }
  | { kind: 'key-conflict' | 'closed' | 'daily-limit' };

export interface OpeningInput {
  id: string;
  /** hex */
  tokenHash: string;
  creationKey: string;
  metadata: string;
  message: string;
  createdAt: string;
  expiresAt: string;
  day: string;
  dailyLimit: number;
}

export interface AppendInput {
  conversationId: string;
  author: Author;
  message: string;
  idempotencyKey: string | null;
  createdAt: string;
  day: string;
  /** null: not limited (the owner's --force), but still counted */
  dailyLimit: number | null;
}

/** A client's follow-up, as the server submits it. */
export interface FollowUpInput extends Omit<AppendInput, 'author' | 'dailyLimit'> {
  idempotencyKey: string;
  dailyLimit: number;
  /** the conversation's status when the request was authenticated */
  statusSeen: ConversationStatus;
}

const CONVERSATION_COLUMNS = 'id, status, blocked, metadata, created_at, expires_at, last_seq, latest_owner_seq';
const NEWEST_DIGEST_PREFIX = 'SELECT hex(substr(token_hash, 1, 3)) FROM conversations ORDER BY rowid DESC LIMIT 1';
const MESSAGE_COLUMNS = 'seq, author, message, created_at';

// The statements on the request path return arrays, named here in the order of the
// columns above: node:sqlite builds a row object several times slower than an array
// (about 4 µs against under 2 µs for a conversation), and these run on every request.
type Row = readonly unknown[];
function conversationOf(row: Row): ConversationRow {
  const [id, status, blocked, metadata, created_at, expires_at, last_seq, latest_owner_seq] = row;
  return { id, status, blocked, metadata, created_at, expires_at, last_seq, latest_owner_seq } as ConversationRow;
}
function messageOf(row: Row): MessageRow {
  const [seq, author, message, created_at] = row;
  return { seq, author, message, created_at } as MessageRow;
}

export type Store = ReturnType<typeof openStore>;

/** Opens (creating when missing) the database, migrates it and prepares every statement. */
export function openStore(dbPath: string, busyTimeoutMs = BUSY_TIMEOUT_MS) {
  if (dbPath !== ':memory:') mkdirSync(path.dirname(dbPath), { recursive: true });
  const db = new DatabaseSync(dbPath, { timeout: busyTimeoutMs, enableForeignKeyConstraints: true });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    // FULL: a 2xx on a POST means the commit reached the disk, even across a power cut.
    db.exec('PRAGMA synchronous = FULL');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }

  const preparedForArrays = (text: string) => {
    const statement = db.prepare(text);
    statement.setReturnArrays(true);
    return statement;
  };
  const sql = {
    dataVersion: db.prepare('PRAGMA data_version'),
    health: db.prepare('SELECT count(*) AS listings FROM listings'),

    allListings: db.prepare('SELECT listing FROM listings ORDER BY slug'),
    upsertListing: db.prepare(
      'INSERT INTO listings (slug, listing) VALUES (?, ?) ON CONFLICT (slug) DO UPDATE SET listing = excluded.listing',
    ),
    removeListing: db.prepare('DELETE FROM listings WHERE slug = ?'),

    conversationById: preparedForArrays(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = ?`),
    conversationByTokenHash: preparedForArrays(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE token_hash = unhex(?)`),
    // One row however many conversations: the digests' first 3 bytes as one hex text, the
    // last rowid read, and the newest conversation's prefix, all from one snapshot. All of
    // them come from the digests' index, which is far smaller than the table (and so
    // quicker to read from a cold disk); the rows added since a rowid, from the table.
    allDigestPrefixes: preparedForArrays(
      `SELECT group_concat(hex(substr(token_hash, 1, 3)), ''), max(rowid), (${NEWEST_DIGEST_PREFIX}) FROM conversations`,
    ),
    digestPrefixesSince: preparedForArrays(
      `SELECT group_concat(hex(substr(token_hash, 1, 3)), ''), max(rowid), (${NEWEST_DIGEST_PREFIX}) FROM conversations WHERE rowid > ?`,
    ),
    digestPrefixAt: preparedForArrays('SELECT hex(substr(token_hash, 1, 3)) FROM conversations WHERE rowid = ?'),
    creationKeyExists: preparedForArrays('SELECT 1 FROM conversations WHERE creation_key = ?'),
    insertConversation: db.prepare(
      `INSERT INTO conversations (id, token_hash, creation_key, status, metadata, created_at, expires_at, last_seq)
       VALUES (?, unhex(?), ?, 'open', ?, ?, ?, 1)`,
    ),
    insertMessage: db.prepare(
      'INSERT INTO messages (conversation_id, seq, author, message, created_at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    advanceConversation: db.prepare(
      `UPDATE conversations SET last_seq = ?, status = ?,
         latest_owner_seq = CASE WHEN ? = 'owner' THEN ? ELSE latest_owner_seq END
       WHERE id = ?`,
    ),
    setStatus: db.prepare('UPDATE conversations SET status = ? WHERE id = ?'),
    setBlocked: db.prepare('UPDATE conversations SET blocked = ? WHERE id = ?'),
    messageByKey: preparedForArrays(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND idempotency_key = ?`,
    ),
    messagesAfter: preparedForArrays(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),

    dailyCount: preparedForArrays('SELECT count FROM daily_counts WHERE day = ?'),
    incrementDailyCount: db.prepare(
      'INSERT INTO daily_counts (day, count) VALUES (?, 1) ON CONFLICT (day) DO UPDATE SET count = count + 1',
    ),

    inbox: db.prepare(
      `SELECT ${CONVERSATION_COLUMNS.split(', ').map((c) => `c.${c}`).join(', ')},
              m.created_at AS last_message_at, m.message AS last_message, m.author AS last_author
       FROM conversations c JOIN messages m ON m.conversation_id = c.id AND m.seq = c.last_seq
       WHERE ? OR c.status <> 'closed'
       -- waiting conversations first, the longest-waiting on top; then the rest, newest first
       ORDER BY c.status = 'open' DESC,
                CASE WHEN c.status = 'open' THEN m.created_at END ASC,
                m.created_at DESC`,
    ),
    conversationIdsByPrefix: db.prepare(
      'SELECT id FROM conversations WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id LIMIT 2',
    ),
    allMessages: db.prepare(
      'SELECT seq, author, message, created_at FROM messages WHERE conversation_id = ? ORDER BY seq',
    ),
    allConversations: db.prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations ORDER BY created_at, id`),
    clientMessagesSince: db.prepare(
      `SELECT m.conversation_id, m.seq, m.message, m.created_at, c.metadata
       FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.author = 'client' AND m.created_at >= ? ORDER BY m.created_at, m.conversation_id, m.seq`,
    ),
    statusCounts: db.prepare('SELECT status, count(*) AS count FROM conversations GROUP BY status'),
    blockedCount: db.prepare('SELECT count(*) AS count FROM conversations WHERE blocked = 1'),
    messageCount: db.prepare('SELECT count(*) AS count FROM messages'),
    purgeExpired: db.prepare('DELETE FROM conversations WHERE expires_at <= ?'),
  } satisfies Record<string, StatementSync>;

  // Transaction control, prepared once like every other statement: a write runs several.
  const control = {
    begin: db.prepare('BEGIN IMMEDIATE'), // takes the write lock up front
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    savepoint: db.prepare('SAVEPOINT request'),
    release: db.prepare('RELEASE request'),
    rollbackToSavepoint: db.prepare('ROLLBACK TO request'),
  };

  /** Runs fn in a write transaction (BEGIN IMMEDIATE takes the write lock up front). */
  function tx<T>(fn: () => T): T {
    control.begin.run();
    try {
      const result = fn();
      control.commit.run();
      return result;
    } catch (err) {
      if (db.isTransaction) control.rollback.run();
      throw err;
    } finally {
      forgetConversations();
    }
  }

  /**
   * Group commit for the server: every write queued during one event-loop turn runs in
   * one transaction, each in its own savepoint so that one failure spoils no other, and
   * one COMMIT (one fsync) makes them durable together. No promise settles before the
   * COMMIT returns, so an answer still means "on disk".
   */
  interface QueuedWrite {
    write: () => unknown;
    /** the conversation whose row the write changes, if it changes one */
    changes: string | null;
    resolve: (value: unknown) => void;
    reject: (err: unknown) => void;
  }
  let queued: QueuedWrite[] = [];
  function commitQueued(): void {
    const batch = queued;
    queued = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      control.begin.run();
      for (const { write } of batch) {
        control.savepoint.run();
        try {
          const value = write();
          control.release.run();
          outcomes.push({ ok: true, value }); // only now: one outcome per write, in order
        } catch (error) {
          // On a full disk or an I/O error SQLite may have rolled the whole transaction back.
          if (!db.isTransaction) throw error;
          control.rollbackToSavepoint.run();
          control.release.run();
          outcomes.push({ ok: false, error });
        }
      }
      control.commit.run();
    } catch (err) {
      try {
        if (db.isTransaction) control.rollback.run();
      } catch {
        // Nothing was committed either way; the writes' own error is the one to report.
      }
      for (const { reject } of batch) reject(err);
      return;
    } finally {
      for (const { changes } of batch) if (changes !== null) forgetConversation(changes);
    }
    batch.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  }
  function groupCommit<T>(write: () => T, changes: string | null): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (queued.length === 0) setImmediate(commitQueued);
      queued.push({ write, changes, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /**
   * PRAGMA data_version, which changes when another connection (the owner script)
   * commits, read at most once per event-loop turn: requests in the same turn are
   * concurrent with such a commit anyway, and the next turn sees it.
   */
  let versionThisTurn: number | null = null;
  function dataVersion(): number {
    if (versionThisTurn === null) {
      versionThisTurn = (sql.dataVersion.get() as { data_version: number }).data_version;
      setImmediate(() => (versionThisTurn = null));
    }
    return versionThisTurn;
  }
  const conversationById = (id: string) => {
    const row = sql.conversationById.get(id) as Row | undefined;
    return row && conversationOf(row);
  };
  /**
   * Conversations by credential, kept between requests: this lookup runs on every
   * authenticated request, and polls are the most frequent requests of all. Which
   * conversation a digest opens never changes, so that is kept while there is room; a
   * row changes, so it is dropped when the server writes to its conversation, and every
   * row is dropped when a transaction of this connection (the owner's commands) or of
   * another (the data version) may have changed any conversation.
   */
  const MAX_CACHED_CONVERSATIONS = 10_000;
  let idByTokenHash = new Map<string, string>();
  let rowById = new Map<string, ConversationRow>();
  let versionSeen = -1;
  function forgetConversations(): void {
    if (rowById.size > 0) rowById = new Map();
  }
  function forgetConversation(id: string): void {
    rowById.delete(id);
  }

  /**
   * Which credential digests may be stored, by their first 24 bits: one bit each in a
   * 2 MiB bitmap, of which only the pages holding a set bit take memory. A credential
   * whose bit is clear matches no conversation and is refused without a read, so an
   * unknown or guessed credential costs a hash and no database work. With 100,000
   * conversations about 1 guess in 170 finds its bit set and takes the read. (That the
   * read took place may show in the timing; it tells a guesser only that some digest
   * shares 24 bits with the guess's, which does not help find a credential.)
   * It is filled on the first lookup from every digest on disk (about 25 ms per 100,000
   * conversations, 125 ms from a cold disk), by this server's openings, and from the rows
   * another connection (another server) has added whenever the data version changes.
   * Those are the rows past the newest one read, unless that one is gone or changed: a
   * purge of the newest conversation gives its rowid to the next opening, so then every
   * digest is read again.
   */
  const digestPrefixes = new Uint8Array(2 ** 24 / 8);
  const prefixOf = (hash: string) => Number.parseInt(hash.slice(0, 6), 16);
  const markPrefix = (prefix: number) => {
    digestPrefixes[prefix >>> 3]! |= 1 << (prefix & 7);
  };
  const isMarked = (prefix: number) => (digestPrefixes[prefix >>> 3]! & (1 << (prefix & 7))) !== 0;
  let lastRowidRead = 0;
  let newestPrefixRead: string | undefined; // the digest prefix of the row at lastRowidRead
  const digestPrefixAt = (rowid: number) => (sql.digestPrefixAt.get(rowid) as Row | undefined)?.[0] as string | undefined;
  function readDigestsAddedSinceLastRead(): void {
    // The newest row read is gone or another: its rowid may now be a new conversation's.
    if (lastRowidRead !== 0 && digestPrefixAt(lastRowidRead) !== newestPrefixRead) lastRowidRead = 0;
    const read = lastRowidRead === 0 ? sql.allDigestPrefixes.get() : sql.digestPrefixesSince.get(lastRowidRead);
    const [prefixes, maxRowid, newestPrefix] = read as unknown as [string | null, number | null, string | null];
    if (prefixes === null || maxRowid === null) return;
    for (let i = 0; i < prefixes.length; i += 6) markPrefix(prefixOf(prefixes.slice(i, i + 6)));
    lastRowidRead = maxRowid;
    newestPrefixRead = newestPrefix ?? undefined;
  }

  function conversationByTokenHash(hash: string): ConversationRow | undefined {
    const version = dataVersion();
    if (version !== versionSeen) {
      // Another connection committed (or this is the first lookup): any conversation may have changed.
      forgetConversations();
      readDigestsAddedSinceLastRead();
      versionSeen = version;
    }
    if (!isMarked(prefixOf(hash))) return undefined;
    const id = idByTokenHash.get(hash);
    const cached = id === undefined ? undefined : rowById.get(id);
    if (cached) return cached;
    const row = sql.conversationByTokenHash.get(hash) as Row | undefined;
    if (!row) {
      if (id !== undefined) idByTokenHash.delete(hash); // purged since it was looked up
      return undefined;
    }
    const conversation = conversationOf(row);
    if (idByTokenHash.size >= MAX_CACHED_CONVERSATIONS) {
      idByTokenHash = new Map();
      rowById = new Map();
    }
    idByTokenHash.set(hash, conversation.id);
    rowById.set(conversation.id, conversation);
    return conversation;
  }
  const messageByKey = (conversationId: string, idempotencyKey: string) => {
    const row = sql.messageByKey.get(conversationId, idempotencyKey) as Row | undefined;
    return row && messageOf(row);
  };
  const dailyCount = (day: string) => ((sql.dailyCount.get(day) as Row | undefined)?.[0] as number | undefined) ?? 0;

  // A day's count only grows, so a count once read (outside a transaction, where nothing
  // can roll it back) stays a lower bound for that day: once the maximum is reached,
  // every refusal that day is decided without a read.
  let countSeen = { day: '', count: 0 };
  function dailyMaximumReached(day: string, dailyLimit: number): boolean {
    if (dailyLimit <= 0) return false;
    if (countSeen.day === day && countSeen.count >= dailyLimit) return true;
    countSeen = { day, count: dailyCount(day) };
    return countSeen.count >= dailyLimit;
  }

  /** Inside a transaction: false when the day's maximum is reached, else counts one message. */
  function countTowardDailyLimit(day: string, dailyLimit: number): boolean {
    if (dailyLimit > 0 && dailyCount(day) >= dailyLimit) return false;
    sql.incrementDailyCount.run(day);
    return true;
  }

  /** Creates a conversation with its opening message as seq 1, counted toward the day. */
  function openConversation(input: OpeningInput): OpeningResult {
    if (sql.creationKeyExists.get(input.creationKey) !== undefined) return { kind: 'key-used' };
    if (!countTowardDailyLimit(input.day, input.dailyLimit)) return { kind: 'daily-limit' };
    sql.insertConversation.run(input.id, input.tokenHash, input.creationKey, input.metadata, input.createdAt, input.expiresAt);
    markPrefix(prefixOf(input.tokenHash)); // set before the commit: a bit set for a rolled-back row only costs a read
    sql.insertMessage.run(input.id, 1, 'client', input.message, input.createdAt, null);
    return { kind: 'created', message: { seq: 1, author: 'client', message: input.message, created_at: input.createdAt } };
  }

  /** An identical retry is answered from its record; a reused key with another body conflicts. */
  function replayOf(input: { conversationId: string; idempotencyKey: string; message: string }): FollowUpResult | null {
    const original = messageByKey(input.conversationId, input.idempotencyKey);
    if (!original) return null;
    return original.message === input.message ? { kind: 'duplicate', message: original } : { kind: 'key-conflict' };
  }

  /**
   * The answer a follow-up gets without writing, or null when it goes to the write batch,
   * which looks its key up first. Here the key is looked up only when the answer would be
   * a refusal, since a retry of a stored message must get its record instead (the
   * contract's order): so a closed conversation or a full day answers without the write
   * lock, while a new message costs one key lookup, not two. A day's count only grows; the
   * status is the one read when the request was authenticated, and is read again before
   * any write.
   */
  function answerWithoutWrite(input: FollowUpInput): FollowUpResult | null {
    const refusal: FollowUpResult | null =
      input.statusSeen === 'closed' ? { kind: 'closed' }
      : dailyMaximumReached(input.day, input.dailyLimit) ? { kind: 'daily-limit' }
      : null;
    return refusal && (replayOf(input) ?? refusal);
  }

  /** A client's follow-up inside the write transaction: the replay check, then appendMessage's own checks. */
  function followUp(input: FollowUpInput): FollowUpResult {
    const replay = replayOf(input);
    if (replay) return replay;
    const result = appendMessage({ ...input, author: 'client' });
    return result.ok ? { kind: 'created', message: result.value } : { kind: result.reason };
  }

  /**
   * Appends a message with the next seq and moves the status: a client message makes
   * the conversation open, an owner reply answered. A closed conversation takes no
   * message (checked inside the transaction, as the owner may close it at any time).
   */
  function appendMessage(input: AppendInput): CountedWrite<MessageRow> {
    const conversation = conversationById(input.conversationId);
    if (!conversation) throw new Error(`conversation ${input.conversationId} disappeared`);
    if (conversation.status === 'closed') return { ok: false, reason: 'closed' };
    if (input.dailyLimit === null) sql.incrementDailyCount.run(input.day);
    else if (!countTowardDailyLimit(input.day, input.dailyLimit)) return { ok: false, reason: 'daily-limit' };
    const seq = conversation.last_seq + 1;
    sql.insertMessage.run(input.conversationId, seq, input.author, input.message, input.createdAt, input.idempotencyKey);
    const status: ConversationStatus = input.author === 'owner' ? 'answered' : 'open';
    sql.advanceConversation.run(seq, status, input.author, seq, input.conversationId);
    return { ok: true, value: { seq, author: input.author, message: input.message, created_at: input.createdAt } };
  }

  return {
    db,
    close: () => db.close(),

    /** Changes when another connection (the owner script) commits; read once per event-loop turn. */
    dataVersion,
    health: () => sql.health.get() as { listings: number },

    listingTexts: () => (sql.allListings.all() as { listing: string }[]).map((row) => row.listing),
    /** Inserts or replaces every listing, all or nothing. */
    upsertListings(listings: readonly Record<string, unknown>[]) {
      tx(() => {
        for (const listing of listings) sql.upsertListing.run(String(listing.slug), JSON.stringify(listing));
      });
    },
    removeListing: (slug: string) => Number(sql.removeListing.run(slug).changes) > 0,

    conversationById,
    /** hash: the credential's SHA-256 in hex */
    conversationByTokenHash,
    creationKeyExists: (key: string) => sql.creationKeyExists.get(key) !== undefined,
    messagesAfter: (conversationId: string, after: number, limit: number) =>
      (sql.messagesAfter.all(conversationId, after, limit) as unknown as Row[]).map(messageOf),
    dailyCount,

    /**
     * The server's opening: key check, daily maximum and insert, group-committed. A day
     * already known to be full refuses without taking the write lock (the caller has
     * just checked the key).
     */
    submitOpening(input: OpeningInput): Promise<OpeningResult> {
      if (dailyMaximumReached(input.day, input.dailyLimit)) return Promise.resolve({ kind: 'daily-limit' });
      return groupCommit(() => openConversation(input), null); // a new row, in no one's memory yet
    },
    /**
     * The server's follow-up: idempotency, state, daily maximum and insert. Refusals (and
     * the retries among them) come from plain reads, without the write lock; the rest are
     * group-committed and decided inside the transaction.
     */
    submitFollowUp(input: FollowUpInput): Promise<FollowUpResult> {
      const answer = answerWithoutWrite(input);
      return answer ? Promise.resolve(answer) : groupCommit(() => followUp(input), input.conversationId);
    },
    /** The owner's reply (or any message), in a transaction of its own. */
    appendMessage: (input: AppendInput) => tx(() => appendMessage(input)),

    /** Up to two ids starting with `prefix`: one means the prefix is unambiguous. */
    conversationIdsByPrefix: (prefix: string) =>
      (sql.conversationIdsByPrefix.all(prefix) as { id: string }[]).map((row) => row.id),
    allMessages: (conversationId: string) => sql.allMessages.all(conversationId) as unknown as MessageRow[],
    setStatus: (id: string, status: ConversationStatus) => tx(() => Number(sql.setStatus.run(status, id).changes) > 0),
    setBlocked: (id: string, blocked: boolean) => tx(() => Number(sql.setBlocked.run(blocked ? 1 : 0, id).changes) > 0),

    inbox: (includeClosed: boolean) => sql.inbox.all(includeClosed ? 1 : 0) as unknown as InboxRow[],
    allConversations: () => sql.allConversations.all() as unknown as ConversationRow[],
    /** Client messages stamped at or after `since`, oldest first. */
    clientMessagesSince: (since: string) =>
      sql.clientMessagesSince.all(since) as unknown as (MessageRow & { conversation_id: string; metadata: string })[],
    stats() {
      const byStatus: Record<string, number> = { open: 0, answered: 0, closed: 0 };
      for (const row of sql.statusCounts.all() as { status: string; count: number }[]) byStatus[row.status] = row.count;
      return {
        byStatus,
        blocked: (sql.blockedCount.get() as { count: number }).count,
        messages: (sql.messageCount.get() as { count: number }).count,
      };
    },
    /** Deletes conversations whose credential expired, with their messages (cascade). */
    purgeExpired: (now: string) => tx(() => Number(sql.purgeExpired.run(now).changes)),
  };
}

function migrate(db: DatabaseSync): void {
  const current = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the database schema is version ${current}, newer than this code knows (${MIGRATIONS.length}); run a newer release`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(MIGRATIONS[version] as string);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  }
}
