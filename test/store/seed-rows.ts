// Rows put straight into a real Store, for the tests of the store's own tables and of the rules
// that read them: no door and no rule in between, so that each test fails for its own file only.

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Store, type Author, type Conversation, type Message } from '../../src/store/store.ts';
import { tempDir, type Cleanup } from '../helpers.ts';

/** The instant the rows are stamped with, unless a test says otherwise. */
export const T0 = Date.parse('2026-03-10T12:00:00.000Z');

/** A migrated store in memory, closed when the test ends. */
export function memoryStore(t: Cleanup): Store {
  const store = new Store(':memory:');
  t.after(() => store.close());
  return store;
}

/** The path of a migrated database file in a temp folder; the folder goes when the test ends. */
export function databaseFile(t: Cleanup): string {
  const dbPath = path.join(tempDir(t), 'service.db');
  new Store(dbPath).close();
  return dbPath;
}

/** Another connection to the file, as the owner script opens one, closed when the test ends. */
export function openStore(t: Cleanup, dbPath: string, busyTimeoutMs?: number): Store {
  const store = new Store(dbPath, busyTimeoutMs);
  t.after(() => store.close());
  return store;
}

/**
 * Inserts a conversation (open, unless `fields` say otherwise) with its first client message as
 * seq 1 (none when `fields` set another last_seq); returns its row as read back, and its credential.
 */
export function seedConversation(
  store: Store,
  fields: Partial<Conversation> = {},
  text = 'Hello, owner.',
): { conversation: Conversation; token: string } {
  const token = randomBytes(32).toString('hex');
  const at = fields.created_at ?? new Date(T0).toISOString();
  const conversation: Conversation = {
    id: randomUUID(),
    status: 'open',
    blocked: 0,
    metadata: '{"agent_name":"seeded"}',
    created_at: at,
    expires_at: '2027-03-10T12:00:00.000Z',
    last_seq: 1,
    latest_owner_seq: 0,
    changed_at: at,
    verified_agent: null,
    sender: 'address:seeded',
    blocked_by: null,
    closed_by: null,
    ...fields,
  };
  store.insertConversation(conversation, createHash('sha256').update(token).digest('hex'), `key-${randomUUID()}`);
  // insertConversation writes neither a block nor who closed it: an opening has neither.
  const { id, verified_agent, sender } = conversation;
  if (conversation.blocked) store.setBlocked(id, true, conversation.blocked_by);
  if (conversation.closed_by) store.setStatus(id, 'closed', conversation.changed_at, conversation.closed_by);
  if (conversation.last_seq === 1) {
    store.insertMessage(id, { seq: 1, author: 'client', message: text, created_at: at, verified_agent }, null, sender);
  }
  return { conversation: store.conversationById(id) as Conversation, token };
}

/** Appends a message as the rules do (the next seq; the conversation's newest), without their checks. */
export function addMessage(
  store: Store,
  id: string,
  author: Author,
  text: string,
  at: string,
  options: { key?: string; sender?: string; agent?: string; beside?: Partial<Message> } = {},
): Message {
  const conversation = store.conversationById(id) as Conversation;
  const message = { seq: conversation.last_seq + 1, author, message: text, created_at: at };
  const stored = { ...message, verified_agent: options.agent ?? null, ...options.beside }; // beside: a question's
  const sender = author === 'client' ? (options.sender ?? conversation.sender) : null;
  store.insertMessage(id, stored, options.key ?? null, sender);
  const ownerSeq = author === 'owner' ? message.seq : conversation.latest_owner_seq;
  const status = conversation.status === 'closed' ? 'closed' : author === 'owner' ? 'answered' : 'open';
  store.advanceConversation(id, stored, ownerSeq, status);
  return stored;
}
