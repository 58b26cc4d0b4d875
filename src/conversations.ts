// The rules of private conversations, decided once for every door: the REST handlers, the
// MCP tools and the owner script call these plain synchronous functions. A write decides
// the contract's order inside one transaction: validated input → idempotency record →
// conversation state → limits → the write. Nothing here knows HTTP.

import { hash, randomBytes, randomUUID } from 'node:crypto';
import { refuse, type Refusal } from './refusals.ts';
import type { Author, Conversation, Message, Store } from './store.ts';
import { isoDaysLater, isoTime, secondsUntilNextUtcDay, utcDay } from './time.ts';
import { LIMITS, conversationId } from './validate.ts';

export const PRIVACY_STATEMENT =
  'Your messages are private between you and the one human who runs this service. They are stored in a ' +
  "SQLite file on the owner's own machine, never published, sold or used to train models, and read only by " +
  'the owner, who answers by hand; no language model writes replies. Your access token is stored only as its ' +
  'SHA-256 hash and never logged. Metadata you declare (agent_name, model, framework) is kept as sent and is ' +
  'shown as unverified. Request logs hold the time, method, route, status and your network address, never ' +
  'message text or credentials. The owner may delete a conversation after its credential expires.';

const CREDENTIAL = /^[0-9a-f]{64}$/;

/** A client's validated opening. */
export interface Opening {
  readonly message: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly key: string;
}

/** When a write happens and under which limits. */
export interface WriteContext {
  readonly at: number;
  /** the shared daily maximum; 0 = unlimited, null = not enforced but still counted (the owner's --force) */
  readonly dailyLimit: number | null;
  /** a limit's refusal judged by its guard, thrown here at the contract's place for limits */
  readonly overLimit?: Refusal | null;
}

/** The SHA-256 of a credential, in hex: the only form in which it is stored (as bytes) or looked up. */
const digestOf = (token: string): string => hash('sha256', token);

/** Counts one message toward the day, or refuses when the shared maximum is reached. */
function countTowardDailyMaximum(store: Store, when: WriteContext, forOwner = false): void {
  const day = utcDay(when.at);
  if (when.dailyLimit && store.dailyCount(day) >= when.dailyLimit) {
    throw forOwner
      ? refuse('ownerDailyMaximum', when.dailyLimit)
      : refuse('dailyMaximum', when.dailyLimit, secondsUntilNextUtcDay(when.at));
  }
  store.countToday(day);
}

/** Appends the next message; a client message makes the conversation open, an owner reply answered. */
function append(
  store: Store,
  conversation: Conversation,
  author: Author,
  text: string,
  at: number,
  key: string | null,
): Message {
  const message = { seq: conversation.last_seq + 1, author, message: text, created_at: isoTime(at) };
  const latestOwnerSeq = author === 'owner' ? message.seq : conversation.latest_owner_seq;
  store.insertMessage(conversation.id, message, key);
  store.advanceConversation(conversation.id, message.seq, latestOwnerSeq, author === 'owner' ? 'answered' : 'open');
  return message;
}

/** Opens a conversation with its first message as seq 1; the credential is returned only here. */
export function openConversation(
  store: Store,
  opening: Opening,
  when: WriteContext,
): { conversation: Conversation; token: string } {
  return store.transaction(() => {
    if (store.creationKeyUsed(opening.key)) throw refuse('creationKeyUsed');
    if (when.overLimit) throw when.overLimit;
    countTowardDailyMaximum(store, when);
    const token = randomBytes(32).toString('hex');
    const createdAt = isoTime(when.at);
    const conversation: Conversation = {
      id: randomUUID(),
      status: 'open',
      blocked: 0,
      metadata: JSON.stringify(opening.metadata),
      created_at: createdAt,
      expires_at: isoDaysLater(when.at, LIMITS.credentialLifetimeDays),
      last_seq: 1,
      latest_owner_seq: 0,
    };
    store.insertConversation(conversation, digestOf(token), opening.key);
    store.insertMessage(
      conversation.id,
      { seq: 1, author: 'client', message: opening.message, created_at: createdAt },
      null,
    );
    return { conversation, token };
  });
}

/** A client's follow-up. An identical retry is answered from its record, even when closed or at the maximum. */
export function followUp(
  store: Store,
  id: string,
  input: { message: string; key: string },
  when: WriteContext,
): { message: Message; duplicate: boolean } {
  return store.transaction(() => {
    const original = store.messageByKey(id, input.key);
    if (original) {
      if (original.message !== input.message) throw refuse('followUpKeyConflict');
      return { message: original, duplicate: true };
    }
    const conversation = store.conversationById(id); // read again: the owner may have closed or purged it
    if (!conversation) throw refuse('unknownCredential');
    if (conversation.status === 'closed') throw refuse('conversationClosed');
    countTowardDailyMaximum(store, when);
    return { message: append(store, conversation, 'client', input.message, when.at, input.key), duplicate: false };
  });
}

/** The owner's reply; it counts toward the shared maximum, which only --force passes. */
export function ownerReply(store: Store, id: string, text: string, when: WriteContext): Message {
  return store.transaction(() => {
    const conversation = existing(store, id);
    if (conversation.status === 'closed') throw refuse('replyToClosed', id);
    countTowardDailyMaximum(store, when, true);
    return append(store, conversation, 'owner', text, when.at, null);
  });
}

/** Closes a conversation: still readable, but follow-ups get 410. */
export function close(store: Store, id: string): void {
  store.transaction(() => {
    if (existing(store, id).status === 'closed') throw refuse('alreadyClosed', id);
    store.setStatus(id, 'closed');
  });
}

/** Reopens a closed conversation; its status again says who wrote last. */
export function reopen(store: Store, id: string): void {
  store.transaction(() => {
    const conversation = existing(store, id);
    if (conversation.status !== 'closed') throw refuse('notClosed', id);
    const ownerWroteLast = conversation.latest_owner_seq === conversation.last_seq;
    store.setStatus(id, ownerWroteLast ? 'answered' : 'open');
  });
}

/** Blocks (or unblocks) a conversation: its credential gets 403 saying so. */
export function setBlocked(store: Store, id: string, blocked: boolean): void {
  store.transaction(() => {
    existing(store, id);
    store.setBlocked(id, blocked);
  });
}

/** Deletes conversations whose credential has expired, with their messages and keys. */
export function purgeExpired(store: Store, at: number): number {
  return store.transaction(() => store.deleteExpired(isoTime(at)));
}

function existing(store: Store, id: string): Conversation {
  const conversation = store.conversationById(id);
  if (!conversation) throw refuse('noSuchConversation', id);
  return conversation;
}

/**
 * The conversation a credential opens, checked in the contract's order: no credential or
 * a malformed one (401), one that matches nothing (401), an id that is not a UUID (400),
 * another conversation's id (403), a blocked conversation (403), an expired credential (410).
 */
export function authenticate(store: Store, token: string | undefined, rawId: unknown, at: number): Conversation {
  if (token === undefined || !CREDENTIAL.test(token)) throw refuse('noCredential');
  const conversation = store.conversationByTokenHash(digestOf(token));
  if (!conversation) throw refuse('unknownCredential');
  if (conversationId(rawId) !== conversation.id) throw refuse('otherConversation');
  if (conversation.blocked) throw refuse('blocked');
  if (Date.parse(conversation.expires_at) <= at) throw refuse('expired', conversation.expires_at);
  return conversation;
}

/** Where a conversation's messages and updates are read. */
function links(baseUrl: string, id: string) {
  const base = `${baseUrl}/api/v1/conversations/${id}`;
  return { messages_url: `${base}/messages`, updates_url: `${base}/updates` };
}

/** The creation result, with the one-time credential. */
export function creationResult(
  opened: { conversation: Conversation; token: string },
  baseUrl: string,
  pollAfterSeconds: number,
) {
  const { conversation, token } = opened;
  const { id, expires_at } = conversation;
  return {
    id,
    access_token: token,
    token_type: 'Bearer',
    expires_at,
    ...links(baseUrl, id),
    privacy: PRIVACY_STATEMENT,
    poll_after_seconds: pollAfterSeconds,
  };
}

/** The Conversation record. */
export function conversationRecord(conversation: Conversation, baseUrl: string, pollAfterSeconds: number) {
  const { id, status, created_at, expires_at, last_seq, latest_owner_seq } = conversation;
  const metadata = JSON.parse(conversation.metadata) as Record<string, string>;
  // message_count: seq rises by one with every message, whoever wrote it
  return {
    id,
    status,
    created_at,
    expires_at,
    last_seq,
    latest_owner_seq,
    message_count: last_seq,
    metadata,
    metadata_verified: false,
    ...links(baseUrl, id),
    poll_after_seconds: pollAfterSeconds,
  };
}

/** A page of the history: messages after `after`, in sequence order. */
export function readMessages(store: Store, conversation: Conversation, range: { after: number; limit: number }) {
  const rows = store.messagesAfter(conversation.id, range.after, range.limit + 1);
  const items = rows.slice(0, range.limit);
  return { items, has_more: rows.length > range.limit, next_after: items.at(-1)?.seq ?? range.after };
}

/** The reply signal; a poll sooner than the interval gets the refusal its guard judged. */
export function checkUpdates(
  conversation: Conversation,
  after: number,
  pollAfterSeconds: number,
  tooSoon: Refusal | null,
) {
  if (tooSoon) throw tooSoon;
  const { id, status, last_seq, latest_owner_seq } = conversation;
  return {
    id,
    status,
    last_seq,
    latest_owner_seq,
    new_reply: latest_owner_seq > after,
    poll_after_seconds: pollAfterSeconds,
  };
}
