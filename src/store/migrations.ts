// The schema as an ordered, append-only list: a released migration is never edited. Each
// runs in its own transaction, versioned by PRAGMA user_version, and a database newer than
// this code is refused rather than misread.

import type { DatabaseSync } from 'node:sqlite';

export const MIGRATIONS: readonly string[] = [
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

  // The limits the server enforces, recorded at each start, so that the owner script
  // enforces the same daily maximum whatever its own environment says.
  `CREATE TABLE settings (
     name  TEXT PRIMARY KEY,
     value TEXT NOT NULL
   ) STRICT;`,

  // Fair shares of the daily maximum. Each sender's count of the UTC day, beside the day's
  // total: 'all', 'owner', 'conversation:<id>' and 'address:<keyed hash>' (an address is never
  // stored as such). Past days are dropped. The openings of the last hour, per keyed address.
  // The opening's key becomes message 1's key: one key space per conversation, whichever door.
  `CREATE TABLE daily_usage (
     day    TEXT NOT NULL, -- UTC date, YYYY-MM-DD
     sender TEXT NOT NULL,
     count  INTEGER NOT NULL,
     PRIMARY KEY (day, sender)
   ) STRICT, WITHOUT ROWID;
   INSERT INTO daily_usage (day, sender, count) SELECT day, 'all', count FROM daily_counts;
   DROP TABLE daily_counts;

   CREATE TABLE recent_openings (
     address TEXT NOT NULL,   -- keyed hash of the client address
     at      INTEGER NOT NULL -- epoch milliseconds
   ) STRICT;
   CREATE INDEX recent_openings_by_address ON recent_openings (address, at);

   UPDATE messages SET idempotency_key = (
       SELECT c.creation_key FROM conversations c WHERE c.id = messages.conversation_id)
     WHERE seq = 1 AND idempotency_key IS NULL AND NOT EXISTS (
       SELECT 1 FROM messages other JOIN conversations c ON c.id = other.conversation_id
       WHERE other.conversation_id = messages.conversation_id AND other.idempotency_key = c.creation_key);`,

  // Where an agent is told of the owner's writes: a signed webhook (one per conversation) or
  // an A2A push notification config (a few per task), and the outbox of events waiting for
  // delivery, written in the same transaction as the write that causes them.
  `CREATE TABLE push_targets (
     id              TEXT PRIMARY KEY, -- the service's own
     conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
     kind            TEXT NOT NULL CHECK (kind IN ('webhook', 'a2a')),
     config_id       TEXT,  -- a2a: the config's id as its client knows it, unique within the task
     url             TEXT NOT NULL,
     secret          TEXT,  -- webhook: the signing secret, shown to the agent once
     token           TEXT,  -- a2a: sent back as X-A2A-Notification-Token
     auth_scheme     TEXT,  -- a2a: sent back as Authorization: <scheme> <credentials>
     auth_credentials TEXT,
     created_at      TEXT NOT NULL,
     last_attempt_at TEXT,  -- the state of its deliveries, for the owner's \`show\`
     last_outcome    TEXT,
     failures        INTEGER NOT NULL DEFAULT 0 -- failed attempts since the last success
   ) STRICT;
   CREATE UNIQUE INDEX push_targets_by_conversation ON push_targets (conversation_id, kind, config_id);

   CREATE TABLE outbox (
     id              TEXT PRIMARY KEY, -- the event's id: webhook-id, the receiver's deduplication key
     target_id       TEXT NOT NULL REFERENCES push_targets (id) ON DELETE CASCADE,
     event           TEXT NOT NULL,    -- the thin event as JSON: ids, type, status, sequence numbers, time
     created_at      INTEGER NOT NULL, -- epoch ms
     attempts        INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     done_at         INTEGER,          -- delivered, or given up
     outcome         TEXT              -- 'delivered', or why it was given up
   ) STRICT;
   CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE done_at IS NULL;
   CREATE INDEX outbox_by_target ON outbox (target_id);`,

  // When the conversation last changed: its newest message, or the owner's close or reopen if
  // later. An A2A task's status carries this time, so a task is built from the row alone.
  `ALTER TABLE conversations ADD COLUMN changed_at TEXT;
   UPDATE conversations
      SET changed_at = (SELECT max(created_at) FROM messages WHERE conversation_id = conversations.id);`,

  // Verified agents (Web Bot Auth): the identity that signed a conversation's opening and each
  // client message (an https URL; null: unsigned); the sender a block of the conversation's sender
  // names, and the sender each client message was counted against, so that a block gives each its
  // own back: 'agent:<identity>' when signed, else 'address:<keyed hash>' (never an address as
  // such). Senders the owner blocked, refused when they open or follow up.
  `ALTER TABLE conversations ADD COLUMN verified_agent TEXT;
   ALTER TABLE conversations ADD COLUMN sender TEXT; -- null for a conversation opened before this migration
   ALTER TABLE messages ADD COLUMN verified_agent TEXT;
   ALTER TABLE messages ADD COLUMN sender TEXT; -- null for the owner's, and for a message stored before

   CREATE TABLE blocked_senders (
     sender          TEXT PRIMARY KEY, -- 'agent:<identity>' or 'address:<keyed hash>'
     blocked_at      TEXT NOT NULL,
     conversation_id TEXT NOT NULL     -- the conversation the owner blocked it from (kept when that one is purged)
   ) STRICT, WITHOUT ROWID;`,

  // Strangers and contacts. A client message's sender now names what it was counted against:
  // 'site:<site>' for a verified stranger (its site's share and the verified pool), 'contact:<identity>'
  // for a contact (neither), 'address:<keyed hash>' unsigned (the address's share and the unverified
  // pool); 'agent:<identity>' is left on messages stored before. The agents the owner knows, by
  // identity or by whole site (a site is blocked in blocked_senders as 'site:<site>'). A conversation
  // that a block of its sender (or its site) blocked names
  // that block, so that lifting it unblocks exactly those. The signatures that authorized a stored
  // message (their SHA-256), each kept until it expires, so that none authorizes a second write.
  `CREATE TABLE contacts (
     contact    TEXT PRIMARY KEY, -- 'agent:<identity>' or 'site:<site>'
     trusted_at TEXT NOT NULL
   ) STRICT, WITHOUT ROWID;

   -- 'agent:…', 'site:…' or 'address:…'; null: blocked alone
   ALTER TABLE conversations ADD COLUMN blocked_by TEXT;

   CREATE TABLE used_signatures (   -- its rowid rises with each: how many are kept is read off it at once
     digest          BLOB NOT NULL UNIQUE, -- SHA-256 of the signature's bytes
     expires_at      INTEGER NOT NULL,     -- epoch ms: after it, the signature verifies nothing anyway
     conversation_id TEXT NOT NULL,
     seq             INTEGER NOT NULL      -- the message it authorized
   ) STRICT;
   CREATE INDEX used_signatures_by_expiry ON used_signatures (expires_at);`,

  // Who closed a conversation: its agent, with its credential, or the owner; null while it is not
  // closed. Before this migration only the owner could close one.
  `ALTER TABLE conversations ADD COLUMN closed_by TEXT CHECK (closed_by IN ('agent', 'owner'));
   UPDATE conversations SET closed_by = 'owner' WHERE status = 'closed';`,

  // Questions. A client message may carry choices (a JSON array of 2 to 8 strings) and a reply-by
  // time (ISO 8601, UTC); either makes it a question. An owner message may record the choice it
  // answered a question with: the question's seq, the choice's index (from 0) and its text. The
  // index finds a conversation's newest question without reading its other messages.
  `ALTER TABLE messages ADD COLUMN choices TEXT;
   ALTER TABLE messages ADD COLUMN reply_by TEXT;
   ALTER TABLE messages ADD COLUMN choice_for_seq INTEGER;
   ALTER TABLE messages ADD COLUMN choice_index INTEGER;
   ALTER TABLE messages ADD COLUMN choice_text TEXT;
   CREATE INDEX messages_questions ON messages (conversation_id, seq)
     WHERE choices IS NOT NULL OR reply_by IS NOT NULL;`,
];

/**
 * Brings the schema up to date; refuses a database from a newer release. Foreign keys are
 * off while a migration runs, so that rebuilding a table (SQLite's way to change a column)
 * cannot cascade into deleting rows; `PRAGMA foreign_key_check` must find nothing wrong
 * before the migration commits. Returns the schema version the database had (0: new).
 */
export function migrate(db: DatabaseSync, migrations: readonly string[] = MIGRATIONS): number {
  const current = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  if (current > migrations.length) {
    throw new Error(
      `the database schema is version ${current}, newer than this code knows (${migrations.length}); ` +
        'run a newer release',
    );
  }
  if (current === migrations.length) return current;
  db.exec('PRAGMA foreign_keys = OFF'); // has no effect inside a transaction, so it is set before
  try {
    for (let version = current; version < migrations.length; version++) {
      runMigration(db, migrations[version] as string, version + 1);
    }
  } finally {
    db.exec('PRAGMA foreign_keys = ON');
  }
  return current;
}

function runMigration(db: DatabaseSync, sql: string, version: number): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(sql);
    const broken = db.prepare('PRAGMA foreign_key_check').all();
    if (broken.length > 0) {
      throw new Error(`migration ${version} would leave ${broken.length} rows pointing at nothing; nothing changed`);
    }
    db.exec(`PRAGMA user_version = ${version}`);
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}
