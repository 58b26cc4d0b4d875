// What a client reads back about a conversation, the same through every door: the creation
// result (the only answer that holds the credential), the Conversation record, a message, the
// reply signal, and the privacy statement.

import { storedMetadata } from '../base/stored-json.ts';
import type { Conversation, Message, Store } from '../store/store.ts';
import { askedOf, choiceOf, currentQuestion, isQuestion, type QuestionView } from './questions.ts';

export const PRIVACY_STATEMENT =
  'Your messages are private between you and the one human who runs this service. They are stored in a ' +
  "SQLite file on the owner's own machine, never published, sold or used to train models, and read only by " +
  'the owner, who answers by hand; no language model writes replies. Your access token is stored only as its ' +
  'SHA-256 hash and never logged. Metadata you declare (agent_name, model, framework) is kept as sent and is ' +
  'shown as unverified. Request logs hold the time, method, route, status and your network address, never ' +
  'message text or credentials. For the fair daily limits your address is counted only as a keyed hash: the ' +
  "day's counts are dropped after the UTC day, and a conversation keeps the hash of the address that opened it, " +
  'so that the owner can block a sender. If you sign your requests (Web Bot Auth), the identity your signature ' +
  'proves is kept with your conversation and messages and shown to the owner, and the SHA-256 of each ' +
  'signature that authorized a stored message is kept until the signature expires, so that none is used twice. ' +
  'If the owner is told of new ' +
  "messages, the program that tells them gets each message's text on the owner's machine; the one this service " +
  'ships keeps the newest 500 to 1,000 in a file only the service can read, and deletes older ones. The owner ' +
  'may delete a conversation after its credential expires.';

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
    // whether the request's signature counted: the identity it proved, or null
    verified_agent: conversation.verified_agent,
  };
}

/** The Conversation record, with its newest question (questions.ts currentQuestion). */
export function conversationRecord(
  conversation: Conversation,
  baseUrl: string,
  pollAfterSeconds: number,
  question: QuestionView | null,
) {
  const { id, status, created_at, expires_at, last_seq, latest_owner_seq } = conversation;
  const metadata = storedMetadata(conversation.metadata) ?? {}; // damaged: shown as none (base/stored-json.ts)
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
    verified_agent: conversation.verified_agent,
    closed_by: conversation.closed_by, // 'agent' or 'owner' while closed, else null
    ...links(baseUrl, id),
    poll_after_seconds: pollAfterSeconds,
    question,
  };
}

/** The Conversation record as it is now: with its newest question, in its state at `now`. */
export function currentRecord(
  store: Store,
  conversation: Conversation,
  config: { readonly publicBaseUrl: string; readonly pollIntervalSeconds: number },
  now: number,
) {
  const question = currentQuestion(store, conversation.id, now);
  return conversationRecord(conversation, config.publicBaseUrl, config.pollIntervalSeconds, question);
}

/** The reply signal: new_reply when the owner wrote after `after`; the newest question and its state. */
export function updatesResult(
  conversation: Conversation,
  after: number,
  pollAfterSeconds: number,
  question: QuestionView | null,
) {
  const { id, status, last_seq, latest_owner_seq } = conversation;
  return {
    id,
    status,
    last_seq,
    latest_owner_seq,
    new_reply: latest_owner_seq > after,
    poll_after_seconds: pollAfterSeconds,
    question,
  };
}

/**
 * A message as a client reads it: a client's with the identity that signed it (or null), and a
 * question's with its choices and reply_by; the owner's with the choice it answered with (or null).
 */
export function messageView(message: Message) {
  const { seq, author, message: text, created_at, verified_agent } = message;
  if (author === 'owner') return { seq, author, message: text, created_at, choice: choiceOf(message) };
  if (!isQuestion(message)) return { seq, author, message: text, created_at, verified_agent };
  const question = askedOf(message);
  return { seq, author, message: text, created_at, verified_agent, ...question };
}
