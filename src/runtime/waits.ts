// Polls that wait for the owner: `GET …/updates?wait=S` (and check_updates' `wait`) is held
// until the owner writes to the conversation (a reply, a close, a block) or S seconds pass. One
// wait per conversation is held at a time: a second one answers the first at once (with a poll
// interval the poll clock refuses the second before it gets here).
// The owner writes from another process, so while anyone waits a timer asks SQLite whether
// anything was committed (PRAGMA data_version, and total_changes() for this connection's
// own writes) a few times a second, and reads again only the conversations someone waits on.
// A waiting poll costs no CPU and a small, bounded amount of memory; on shutdown every one
// is answered at once.

import { keepRunning } from '../base/background.ts';
import { describeError, type Log } from '../base/log.ts';
import type { Conversation, Store } from '../store/store.ts';

const CHECK_EVERY_MS = 250; // the owner's write reaches a waiting agent within about a quarter second
/**
 * Polls held at once, at most. Each costs about 19 KiB while it waits, 13 of them Node's own
 * for an open request (npm run bench measures it): 10,000 cost about 190 MiB. Past this a
 * poll is answered at once, as a poll without wait.
 */
export const MAX_WAITING_POLLS = 10_000;

interface Waiter {
  /** the conversation as it was when the wait began: the answer if it cannot be read again */
  readonly conversation: Conversation;
  readonly after: number;
  readonly closed: boolean;
  readonly blocked: number;
  readonly done: (conversation: Conversation | undefined, ownerWrote: boolean, timedOut?: boolean) => void;
}

/** Whether the owner has written since a waiter began: a reply after `after`, a close or reopen, a block. */
function ownerWrote(waiter: Waiter, now: Conversation | undefined): boolean {
  if (now === undefined) return true; // purged
  const closedNow = now.status === 'closed';
  return now.latest_owner_seq > waiter.after || closedNow !== waiter.closed || now.blocked !== waiter.blocked;
}

export class ReplyWaits {
  readonly #store: Store;
  readonly #log: Log;
  readonly #byConversation = new Map<string, Waiter>();
  #timer: NodeJS.Timeout | null = null;
  #seen = { changes: -1, version: -1 };

  constructor(store: Store, log: Log) {
    this.#store = store;
    this.#log = log;
  }

  get size(): number {
    return this.#byConversation.size;
  }

  /** Whether one more poll may wait. */
  hasRoom(): boolean {
    return this.#byConversation.size < MAX_WAITING_POLLS;
  }

  /**
   * Resolves when the owner writes to the conversation or `seconds` pass, with the
   * conversation as it is then (undefined when it was purged), whether the owner wrote, and
   * whether the seconds ran out. A wait already held on the conversation is answered now. The
   * caller asks hasRoom() first.
   */
  wait(conversation: Conversation, after: number, seconds: number, cancelled: AbortSignal) {
    this.#byConversation.get(conversation.id)?.done(this.#read(conversation.id), false);
    type Ended = { conversation: Conversation | undefined; ownerWrote: boolean; timedOut: boolean };
    return new Promise<Ended>((resolve) => {
      const finish = (now: Conversation | undefined, wrote: boolean, timedOut = false) => {
        clearTimeout(timeout);
        cancelled.removeEventListener('abort', onAbort);
        if (this.#byConversation.get(conversation.id) !== waiter) return; // already answered
        this.#byConversation.delete(conversation.id);
        if (this.#byConversation.size === 0) this.#stopWatching();
        resolve({ conversation: now, ownerWrote: wrote, timedOut });
      };
      const closed = conversation.status === 'closed';
      const waiter: Waiter = { conversation, after, closed, blocked: conversation.blocked, done: finish };
      const timeout = setTimeout(() => finish(this.#read(conversation.id), false, true), seconds * 1000);
      const onAbort = () => finish(undefined, false); // the client went away: nobody to answer
      cancelled.addEventListener('abort', onAbort);
      this.#byConversation.set(conversation.id, waiter);
      this.#startWatching();
    });
  }

  /** Answers every waiting poll now, with the conversation as it is (on shutdown). */
  answerAll(): void {
    for (const [id, waiter] of [...this.#byConversation]) waiter.done(this.#read(id), false);
  }

  /**
   * The conversation as the database holds it now; when it cannot be read (a fault, a table a bad
   * restore removed), as it was when its wait began, so the poll is still answered.
   */
  #read(id: string): Conversation | undefined {
    try {
      return this.#store.conversationById(id);
    } catch (err) {
      this.#log({ time: new Date().toISOString(), level: 'error', task: 'waits', error: describeError(err) });
      return this.#byConversation.get(id)?.conversation;
    }
  }

  #startWatching(): void {
    if (this.#timer !== null) return;
    this.#seen = { changes: -1, version: -1 }; // the first check reads every conversation waited on
    this.#timer = setInterval(keepRunning('waits', () => this.#check(), this.#log), CHECK_EVERY_MS);
    this.#timer.unref();
  }

  #stopWatching(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** When anything was committed, reads each conversation waited on once and answers those the owner wrote to. */
  #check(): void {
    const now = { changes: this.#store.totalChanges(), version: this.#store.dataVersion() };
    if (now.changes === this.#seen.changes && now.version === this.#seen.version) return;
    this.#seen = now;
    for (const [id, waiter] of [...this.#byConversation]) {
      const conversation = this.#store.conversationById(id);
      if (ownerWrote(waiter, conversation)) waiter.done(conversation, true);
    }
  }
}
