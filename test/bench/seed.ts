// Seeds a database with many conversations and messages for `npm run bench -- --scale`.
// Benchmark tooling, not the service: it writes rows straight into the schema that
// the Store creates, in one transaction, because a million single commits would take hours.

import { randomBytes, randomUUID } from 'node:crypto';
import { Store } from '../../src/store/store.ts';

/** Fills dbPath with `conversations` conversations of `perConversation` messages each. */
export function seedDatabase(dbPath: string, conversations: number, perConversation: number): void {
  const store = new Store(dbPath);
  const { db } = store;
  db.exec('PRAGMA synchronous = OFF'); // a seed that fails is simply made again
  const insertConversation = db.prepare(
    `INSERT INTO conversations
       (id, token_hash, creation_key, status, metadata, created_at, expires_at, last_seq, latest_owner_seq, changed_at)
     VALUES (?, ?, ?, ?, '{"agent_name":"seeded"}', ?, ?, ?, ?, ?)`,
  );
  const insertMessage = db.prepare(
    `INSERT INTO messages (conversation_id, seq, author, message, created_at, idempotency_key)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const start = Date.now() - 30 * 86_400_000;
  db.exec('BEGIN');
  for (let c = 0; c < conversations; c++) {
    const id = randomUUID();
    const createdAt = new Date(start + c * 20_000).toISOString();
    const expiresAt = new Date(start + c * 20_000 + 365 * 86_400_000).toISOString();
    const lastOwner = perConversation % 2 === 0 ? perConversation : perConversation - 1;
    insertConversation.run(
      id,
      randomBytes(32),
      `seed-${c}`,
      'answered',
      createdAt,
      expiresAt,
      perConversation,
      lastOwner,
      createdAt, // every seeded message has the conversation's time
    );
    for (let seq = 1; seq <= perConversation; seq++) {
      const client = seq % 2 === 1;
      insertMessage.run(
        id,
        seq,
        client ? 'client' : 'owner',
        `Seeded message ${seq} of conversation ${c}.`,
        createdAt,
        client && seq > 1 ? `seed-key-${seq}` : null,
      );
    }
  }
  db.exec('COMMIT');
  store.close();
}
