// A conversation as an A2A task. One conversation is one task for its whole life: task.id =
// contextId = the conversation id; its status says whose turn it is; its history is the messages,
// newest last. (What a request's params say is read in params.ts.)

import type { App } from '../../runtime/app.ts';
import { withinTextBudget } from '../../rules/conversations.ts';
import type { Conversation, Message } from '../../store/store.ts';
import { taskState } from '../../outbound/task-state.ts';
import { currentQuestion } from '../../rules/questions.ts';
import { outboundParts } from './parts.ts';

type Json = Record<string, unknown>;

/** A conversation as a Task. */
export function taskOf(app: App, conversation: Conversation, historyLength: number, extra: Json = {}) {
  const { id } = conversation;
  const newest = historyLength === 0 ? [] : withinTextBudget(app.store.newestMessages(id, historyLength), 'newest');
  const history = newest.map((message) => messageOf(id, message));
  const status = {
    state: taskState(conversation.status, conversation.closed_by),
    message: statusMessage(app, conversation, newest.at(-1)),
    timestamp: conversation.changed_at,
  };
  return {
    id,
    contextId: id,
    status,
    history,
    metadata: {
      conversationStatus: conversation.status,
      lastSeq: conversation.last_seq,
      latestOwnerSeq: conversation.latest_owner_seq,
      expiresAt: conversation.expires_at,
      pollAfterSeconds: app.config.pollIntervalSeconds,
      verifiedAgent: conversation.verified_agent, // the identity that signed the opening, or null
      question: currentQuestion(app.store, id, app.now()), // the newest question and its state, or null
      ...extra,
    },
  };
}

/** A message, with the key a client sent it with where it was read (an owner's has none). */
type Row = Message & { key?: string | null };

/** A message as A2A shows it: the client's with its messageId (its key), the owner's with id:seq. */
function messageOf(id: string, row: Row) {
  const own = row.author === 'owner';
  return {
    messageId: own || row.key == null ? `${id}:${row.seq}` : row.key,
    contextId: id,
    taskId: id,
    role: own ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: outboundParts(row),
    // A client's message carries the identity that signed it (null: unsigned); the owner's, none.
    metadata: own
      ? { seq: row.seq, createdAt: row.created_at }
      : { seq: row.seq, createdAt: row.created_at, verifiedAgent: row.verified_agent },
  };
}

/**
 * The status message: the owner's newest when it is the agent's turn (an answered conversation's
 * newest message is the owner's), else a note that stays out of history.
 */
function statusMessage(app: App, conversation: Conversation, newest: Row | undefined) {
  const { id } = conversation;
  if (conversation.status === 'answered') {
    const reply = newest ?? app.store.messageBySeq(id, conversation.latest_owner_seq);
    if (reply?.author === 'owner') return messageOf(id, reply);
  }
  const every = app.config.pollIntervalSeconds;
  const closer = conversation.closed_by === 'agent' ? 'You' : 'The owner';
  const text =
    conversation.status === 'closed'
      ? `${closer} closed this conversation. It can still be read; it takes no new messages.`
      : 'Delivered. A human answers by hand, often hours later; check this task at most once every ' +
        `${every} seconds, or register a push notification config.`;
  return note(id, conversation.last_seq, text);
}

/** A note from the service (not the owner): messageId id:note:lastSeq. */
export function note(id: string, lastSeq: number, text: string) {
  return {
    messageId: `${id}:note:${lastSeq}`,
    contextId: id,
    taskId: id,
    role: 'ROLE_AGENT',
    parts: [{ text, mediaType: 'text/plain' }],
  };
}
