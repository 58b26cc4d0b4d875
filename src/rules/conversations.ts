// The rules of private conversations, decided once for every door: the REST handlers, the
// MCP tools and the owner script call these plain synchronous functions. A write decides
// the contract's order inside one transaction: the conversation's state as it is now
// (blocked, expired) → idempotency record → state (closed) → limits (quotas.ts) → the write.
// Nothing here knows HTTP.

import { randomBytes, randomUUID } from 'node:crypto';
import { BOUNDS } from '../base/contract.ts';
import { digestOf, usableConversation } from './access.ts';
import { writePushEvents } from './push.ts';
import { countClientMessage, countedAs, countOpening, countOwnerReply, type Quotas } from './quotas.ts';
import { recordSignature, refuseUsedSignature, type SignatureUse } from './signatures.ts';
import { siteOf } from '../base/sites.ts';
import { refuse } from '../refusals/refusal.ts';
import { messageView } from './views.ts';
import {
  chosen,
  NO_QUESTION,
  questionColumns,
  refuseReplyByOutOfRange,
  sameQuestion,
  type QuestionInput,
} from './questions.ts';
import type { SenderKey } from '../store/senders.ts';
import type { Author, Conversation, Message, Store } from '../store/store.ts';
import { isoDaysLater, isoTime } from '../base/time.ts';

/** A client's validated opening. */
export interface Opening {
  readonly message: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly key: string;
  /** choices and a reply-by time, when the message is a question (questions.ts) */
  readonly question?: QuestionInput;
}

/** A client's validated follow-up. */
export interface FollowUpInput {
  readonly message: string;
  readonly key: string;
  readonly question?: QuestionInput;
}

/** A client's write: when, under which quotas, from which address (its keyed hash), signed by whom (or null). */
export interface WriteFacts {
  readonly at: number;
  readonly quotas: Quotas;
  /** the client's address, keyed and hashed (rules/quotas.ts addressKey): never the address itself */
  readonly addressHash: string;
  /** the identity that signed the request (Web Bot Auth), or null: unverified */
  readonly agent: string | null;
  /** the signature that proved it (null: unsigned), which authorizes this one write */
  readonly signature: SignatureUse | null;
}

/**
 * Refuses a sender the owner blocked: the write's own (its agent or that agent's site, or its address),
 * or the conversation's opener (likewise).
 */
function refuseBlockedSender(store: Store, write: WriteFacts, conversation?: Conversation): void {
  const { agent } = write;
  const own = agent === null ? [`address:${write.addressHash}`] : [`agent:${agent}`, `site:${siteOf(agent)}`];
  const opener = conversation?.verified_agent;
  const theirs = opener ? [conversation.sender, `site:${siteOf(opener)}`] : [conversation?.sender];
  if (store.senderBlocks.anyBlocked([...own, ...theirs])) throw refuse('sender_blocked');
}

/** What a message stores beside its text: a client's question, or the owner's choice. */
type Beside = Partial<Pick<Message, 'choices' | 'reply_by' | 'choice_for_seq' | 'choice_index' | 'choice_text'>>;

/** Appends the next message; a client message makes the conversation open, an owner reply answered. */
function append(
  store: Store,
  conversation: Conversation,
  author: Author,
  text: string,
  at: number,
  key: string | null,
  client: { agent: string | null; sender: SenderKey } | null = null,
  beside: Beside = {},
): Message {
  const seq = conversation.last_seq + 1;
  const verified_agent = client?.agent ?? null;
  const message = { seq, author, message: text, created_at: isoTime(at), verified_agent, ...beside };
  const latestOwnerSeq = author === 'owner' ? message.seq : conversation.latest_owner_seq;
  // An owner's last word to a conversation its agent closed leaves it closed; otherwise whose turn it is.
  const status = conversation.status === 'closed' ? 'closed' : author === 'owner' ? 'answered' : 'open';
  store.insertMessage(conversation.id, message, key, client?.sender ?? null);
  store.advanceConversation(conversation.id, message, latestOwnerSeq, status);
  return message;
}

/**
 * Opens a conversation with its first message as seq 1, whose key is the opening's key; the
 * credential is returned only here.
 */
export function openConversation(
  store: Store,
  opening: Opening,
  write: WriteFacts,
  alsoWrite?: (conversationId: string) => void,
): { conversation: Conversation; token: string; contact: boolean } {
  return store.transaction(() => {
    refuseBlockedSender(store, write);
    if (store.creationKeyUsed(opening.key)) throw refuse('creation_key_used');
    const question = opening.question ?? NO_QUESTION;
    refuseReplyByOutOfRange(question, write.at);
    if (write.signature) refuseUsedSignature(store, write.signature, write.at, write.quotas.dailyMaximum);
    countOpening(store, write.quotas, write.at, write.addressHash);
    const id = randomUUID();
    const counted = countedAs(store, write.agent, write.addressHash);
    countClientMessage(store, write.quotas, write.at, { conversationId: id, key: counted });
    const token = randomBytes(32).toString('hex');
    const createdAt = isoTime(write.at);
    const conversation: Conversation = {
      id,
      status: 'open',
      blocked: 0,
      metadata: JSON.stringify(opening.metadata),
      created_at: createdAt,
      expires_at: isoDaysLater(write.at, BOUNDS.credentialLifetimeDays),
      last_seq: 1,
      latest_owner_seq: 0,
      changed_at: createdAt,
      verified_agent: write.agent,
      sender: write.agent === null ? `address:${write.addressHash}` : `agent:${write.agent}`,
      blocked_by: null,
      closed_by: null,
    };
    store.insertConversation(conversation, digestOf(token), opening.key);
    const first = {
      seq: 1,
      author: 'client' as const,
      message: opening.message,
      created_at: createdAt,
      verified_agent: write.agent,
      ...questionColumns(question),
    };
    store.insertMessage(id, first, opening.key, counted);
    if (write.signature) recordSignature(store, write.signature, id, 1);
    alsoWrite?.(id);
    return { conversation, token, contact: counted.startsWith('contact:') };
  });
}

/**
 * A client's follow-up. The conversation is read again inside the write: a block, an expiry
 * or a close that came after the request was authenticated still stops it. An identical
 * retry is answered from its record, even when closed or over a limit.
 */
export function followUp(
  store: Store,
  id: string,
  input: FollowUpInput,
  write: WriteFacts,
  alsoWrite?: (conversationId: string) => void,
): { message: Message; duplicate: boolean; conversation: Conversation; contact: boolean } {
  return store.transaction(() => {
    // Read again inside the write: purged, blocked or expired since the request was authenticated.
    const conversation = usableConversation(store.conversationById(id), write.at);
    refuseBlockedSender(store, write, conversation);
    const original = store.messageByKey(id, input.key);
    const question = input.question ?? NO_QUESTION;
    if (original) {
      // the same key must carry the same message: its text, and its choices and reply_by
      const same = original.message === input.message && sameQuestion(original, question);
      if (!same) throw refuse('follow_up_key_conflict');
      return { message: original, duplicate: true, conversation, contact: false };
    }
    refuseReplyByOutOfRange(question, write.at);
    if (write.signature) refuseUsedSignature(store, write.signature, write.at, write.quotas.dailyMaximum);
    if (conversation.status === 'closed') throw refuse('conversation_closed');
    const counted = countedAs(store, write.agent, write.addressHash);
    countClientMessage(store, write.quotas, write.at, { conversationId: id, key: counted });
    const client = { agent: write.agent, sender: counted };
    const beside = questionColumns(question);
    const message = append(store, conversation, 'client', input.message, write.at, input.key, client, beside);
    if (write.signature) recordSignature(store, write.signature, id, message.seq);
    alsoWrite?.(id);
    return { message, duplicate: false, conversation, contact: counted.startsWith('contact:') };
  });
}

/**
 * The owner's reply; it may use the whole daily maximum, which only `force` passes. A conversation the
 * owner closed takes no reply until reopened; one its agent closed does, and stays closed. With `choose`
 * it answers the open question with that choice (questions.ts), and its text is the choice's when null.
 */
export function ownerReply(
  store: Store,
  id: string,
  text: string | null,
  when: { at: number; dailyMaximum: number; force?: boolean; choose?: string },
): Message {
  return store.transaction(() => {
    const conversation = existing(store, id);
    if (conversation.status === 'closed' && conversation.closed_by !== 'agent') throw refuse('reply_to_closed', id);
    const choice = when.choose === undefined ? null : chosen(store, id, when.choose, when.at);
    countOwnerReply(store, when.dailyMaximum, when.at, when.force === true);
    const beside = choice && { choice_for_seq: choice.for_seq, choice_index: choice.index, choice_text: choice.text };
    const words = text ?? choice?.text;
    if (words === undefined) throw new Error('a reply needs its text, or a choice');
    const message = append(store, conversation, 'owner', words, when.at, null, null, beside ?? {});
    writePushEvents(store, id, 'conversation.replied', when.at);
    return message;
  });
}

/** Deletes conversations whose credential has expired, with their messages and keys. */
export function purgeExpired(store: Store, at: number): number {
  return store.transaction(() => store.deleteExpired(isoTime(at)));
}

/** The conversation the owner names, or the refusal saying none has that id. */
export function existing(store: Store, id: string): Conversation {
  const conversation = store.conversationById(id);
  if (!conversation) throw refuse('no_such_conversation', id);
  return conversation;
}

/** A page of the history: messages after `after`, in sequence order. */
export function readMessages(store: Store, conversation: Conversation, range: { after: number; limit: number }) {
  const rows = store.messagesAfter(conversation.id, range.after, range.limit + 1);
  const items = withinTextBudget(rows.slice(0, range.limit), 'oldest');
  const next_after = items.at(-1)?.seq ?? range.after;
  return { items: items.map(messageView), has_more: rows.length > items.length, next_after };
}

/**
 * The messages that fit in BOUNDS.pageTextBytes, kept from the oldest on (a page) or the newest
 * back (a window). A page of 100 messages of 8000 emoji is 3.2 MB (twice that through MCP, which
 * sends a result twice), and building it holds the server for every other client: a page stops
 * before the message that would pass the limit, and says there is more. Its first message always
 * fits (8000 code points are at most 32 KB).
 */
export function withinTextBudget<M extends { message: string }>(messages: M[], keep: 'oldest' | 'newest'): M[] {
  const ordered = keep === 'oldest' ? messages : [...messages].reverse();
  let bytes = 0;
  let count = 0;
  for (const message of ordered) {
    bytes += Buffer.byteLength(message.message);
    if (count > 0 && bytes > BOUNDS.pageTextBytes) break;
    count++;
  }
  return keep === 'oldest' ? messages.slice(0, count) : messages.slice(messages.length - count);
}
