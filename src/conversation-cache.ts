// Credentials looked up from memory: conversations kept by credential between requests, and
// which credentials exist at all. Inside the server one SQLite read costs about 10 µs, and
// every authenticated request makes one: a poll answered from here takes about 40 % less
// CPU, and an unknown credential refused without a read about 30 % less (docs/performance.md
// has the A/B runs). service.ts opens the store through this class in one line.
//
// It answers only with what is committed and current:
// - when another connection (the owner script, another server) has committed, everything
//   kept is dropped and the credentials are read again (commits.ts);
// - a conversation is dropped as soon as this server writes to it, and one read while a
//   write transaction is open is not kept: that transaction may roll back;
// - a credential whose digest prefix is unknown matches no conversation; one that is known
//   only may (about 1 in 10 at 100,000 conversations), and is looked up.

import { watchOtherCommits } from './commits.ts';
import { Store, type Conversation, type ConversationStatus } from './store.ts';

const MAX_CONVERSATIONS = 10_000; // kept at most; past this it starts over
const PREFIX_BITS = 20; // a bit for each value of a digest's first 20 bits: 128 KiB

export class CachingStore extends Store {
  readonly #capacity: number;
  #byDigest = new Map<string, Conversation>();
  #digestById = new Map<string, string>();
  #knownPrefixes: Uint8Array | null = null; // null: to be read from the database
  readonly #othersCommitted = watchOtherCommits(this);

  /** `capacity`: tests lower it to see the cache start over. */
  constructor(dbPath: string, busyTimeoutMs?: number, capacity = MAX_CONVERSATIONS) {
    super(dbPath, busyTimeoutMs);
    this.#capacity = capacity;
  }

  override conversationByTokenHash(tokenHash: string): Conversation | undefined {
    if (this.#othersCommitted()) {
      this.#forgetAll();
      this.#knownPrefixes = null;
    }
    const cached = this.#byDigest.get(tokenHash);
    if (cached) return cached;
    this.#knownPrefixes ??= this.#readKnownPrefixes();
    if (!isSet(this.#knownPrefixes, tokenHash)) return undefined;
    const conversation = super.conversationByTokenHash(tokenHash);
    if (conversation && !this.inTransaction()) {
      if (this.#byDigest.size >= this.#capacity) this.#forgetAll();
      this.#byDigest.set(tokenHash, conversation);
      this.#digestById.set(conversation.id, tokenHash);
    }
    return conversation;
  }

  override insertConversation(conversation: Conversation, tokenHash: string, creationKey: string): void {
    super.insertConversation(conversation, tokenHash, creationKey);
    if (this.#knownPrefixes) set(this.#knownPrefixes, tokenHash); // if it rolls back, the bit costs a read
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

  #readKnownPrefixes(): Uint8Array {
    const known = new Uint8Array(2 ** PREFIX_BITS / 8);
    const prefixes = this.digestPrefixes(); // 6 hex digits each
    for (let i = 0; i < prefixes.length; i += 6) set(known, prefixes.slice(i, i + 6));
    return known;
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

/** A hex digest's first PREFIX_BITS bits, as a bit number. */
function bitOf(hexDigest: string): number {
  return Number.parseInt(hexDigest.slice(0, PREFIX_BITS / 4), 16);
}
function isSet(bits: Uint8Array, hexDigest: string): boolean {
  const bit = bitOf(hexDigest);
  return ((bits[bit >>> 3] ?? 0) & (1 << (bit & 7))) !== 0;
}
function set(bits: Uint8Array, hexDigest: string): void {
  const bit = bitOf(hexDigest);
  bits[bit >>> 3] = (bits[bit >>> 3] ?? 0) | (1 << (bit & 7));
}
