// Credentials looked up from memory: the conversation each credential digest opened, kept
// between requests. Every authenticated request looks its credential up, and inside the
// server one SQLite read costs about 9 µs; docs/performance.md has the A/B runs that keep
// this file (a poll costs about a third less CPU).
//
// It cannot serve what the database no longer holds, whatever writes it: everything kept is
// forgotten as soon as anything was written, by this connection (SQLite's total_changes(),
// read on every lookup: whichever code wrote, through whichever method) or by another one
// such as the owner script (PRAGMA data_version, read once per event-loop turn: requests of
// one turn are concurrent with such a commit anyway). A conversation read while a write
// transaction is open is not kept: that transaction may roll back. Writes never trust it:
// each rule reads its conversation again inside its own transaction.

import { watchOtherCommits } from '../store/other-commits.ts';
import type { Conversation, Store } from '../store/store.ts';

/** Conversations kept at most (about 300 bytes each); past this it starts over. */
const MAX_CONVERSATIONS = 10_000;

export class CredentialCache {
  readonly #store: Store;
  readonly #capacity: number;
  readonly #othersCommitted: () => boolean;
  #byDigest = new Map<string, Conversation>();
  #changesSeen = -1;

  /** `capacity`: tests lower it to see the cache start over. */
  constructor(store: Store, capacity = MAX_CONVERSATIONS) {
    this.#store = store;
    this.#capacity = capacity;
    this.#othersCommitted = watchOtherCommits(store);
  }

  /** The conversation whose credential has this SHA-256 (hex), as the database holds it now. */
  lookup(digest: string): Conversation | undefined {
    this.#forgetIfWritten();
    const kept = this.#byDigest.get(digest);
    if (kept) return kept;
    const conversation = this.#store.conversationByTokenHash(digest);
    if (conversation && !this.#store.inTransaction()) {
      if (this.#byDigest.size >= this.#capacity) this.#byDigest = new Map();
      this.#byDigest.set(digest, conversation);
    }
    return conversation;
  }

  get size(): number {
    return this.#byDigest.size;
  }

  #forgetIfWritten(): void {
    const changes = this.#store.totalChanges();
    const othersCommitted = this.#othersCommitted();
    if (changes === this.#changesSeen && !othersCommitted) return;
    this.#changesSeen = changes;
    if (this.#byDigest.size > 0) this.#byDigest = new Map();
  }
}
