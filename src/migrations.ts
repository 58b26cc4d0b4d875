// The schema as an ordered, append-only list: a released migration is never edited. Each
// runs in its own transaction, versioned by PRAGMA user_version, and a database newer than
// this code is refused rather than misread.

import type { DatabaseSync } from 'node:sqlite';

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

  // The limits the server enforces, recorded at each start, so that the owner script
  // enforces the same daily maximum whatever its own environment says.
  `CREATE TABLE settings (
     name  TEXT PRIMARY KEY,
     value TEXT NOT NULL
   ) STRICT;`,
];

/** Brings the schema up to date; refuses a database from a newer release. */
export function migrate(db: DatabaseSync): void {
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
