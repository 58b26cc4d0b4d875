// Conversations by credential, kept in memory between requests. Inside the server one
// SQLite read costs about 10 µs, and every authenticated request makes one: answering a
// poll from here takes about 40 % less CPU (docs/performance.md has the A/B runs).
// service.ts opens the store through this class in one line; nothing else knows of it.
//
// It keeps only what is committed and current:
// - every entry goes when another connection (the owner script) has committed (commits.ts);
// - an entry goes as soon as this server writes to its conversation;
// - a row read while a write transaction is open is not kept: that transaction may roll back.

import { watchOtherCommits } from './commits.ts';
import { Store, type Conversation, type ConversationStatus } from './store.ts';

const MAX_CONVERSATIONS = 10_000; // kept at most; past this it starts over

export class CachingStore extends Store {
  readonly #capacity: number;
  #byDigest = new Map<string, Conversation>();
  #digestById = new Map<string, string>();
  readonly #othersCommitted = watchOtherCommits(this);

  /** `capacity`: tests lower it to see the cache start over. */
  constructor(dbPath: string, busyTimeoutMs?: number, capacity = MAX_CONVERSATIONS) {
    super(dbPath, busyTimeoutMs);
    this.#capacity = capacity;
  }

  override conversationByTokenHash(tokenHash: string): Conversation | undefined {
    if (this.#othersCommitted()) this.#forgetAll();
    const cached = this.#byDigest.get(tokenHash);
    if (cached) return cached;
    const conversation = super.conversationByTokenHash(tokenHash);
    if (conversation && !this.inTransaction()) {
      if (this.#byDigest.size >= this.#capacity) this.#forgetAll();
      this.#byDigest.set(tokenHash, conversation);
      this.#digestById.set(conversation.id, tokenHash);
    }
    return conversation;
  }

  override advanceConversation(id: string, lastSeq: number, latestOwnerSeq: number, status: ConversationStatus): void {
    this.#forget(id);
    super.advanceConversation(id, lastSeq, latestOwnerSeq, status);
  }
  override setStatus(id: string, status: ConversationStatus): void {
    this.#forget(id);
    super.setStatus(id, status);
  }
  override setBlocked(id: string, blocked: boolean): void {
    this.#forget(id);
    super.setBlocked(id, blocked);
  }
  override deleteExpired(now: string): number {
    this.#forgetAll();
    return super.deleteExpired(now);
  }

  #forget(id: string): void {
    const digest = this.#digestById.get(id);
    if (digest === undefined) return;
    this.#byDigest.delete(digest);
    this.#digestById.delete(id);
  }
  #forgetAll(): void {
    this.#byDigest = new Map();
    this.#digestById = new Map();
  }
}
