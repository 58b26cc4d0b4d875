// Closing and reopening a conversation. The owner closes and reopens with the owner's script; the agent
// may close its own, with its credential (REST `POST …/close`, MCP `close_conversation`, A2A
// `CancelTask`), once done: closing a closed conversation answers it as it is. A closed conversation
// stays readable and its follow-ups get 410; the owner may still reopen it, or, when its agent closed
// it, reply (it stays closed). Each change tells the agent's webhook and push configs, naming who closed.

import { isoTime } from '../base/time.ts';
import { refuse } from '../refusals/refusal.ts';
import type { Conversation, Store } from '../store/store.ts';
import { usableConversation } from './access.ts';
import { isContact } from './contacts.ts';
import { existing } from './conversations.ts';
import { writePushEvents } from './push.ts';

/** The owner closes a conversation: still readable, but follow-ups get 410. */
export function close(store: Store, id: string, at = Date.now()): void {
  store.transaction(() => {
    if (existing(store, id).status === 'closed') throw refuse('already_closed', id);
    store.setStatus(id, 'closed', isoTime(at), 'owner');
    writePushEvents(store, id, 'conversation.closed', at);
  });
}

/**
 * The agent closes its own conversation, read again inside the write (purged, blocked or expired since
 * the request was authenticated still refuses it). Idempotent: a closed one is answered as it is.
 * `contact`: whether its opener is one of the owner's contacts, for the owner's notifier.
 */
export function closeByAgent(
  store: Store,
  id: string,
  at: number,
): { conversation: Conversation; closed: boolean; contact: boolean } {
  return store.transaction(() => {
    const conversation = usableConversation(store.conversationById(id), at);
    if (conversation.status === 'closed') return { conversation, closed: false, contact: false };
    store.setStatus(id, 'closed', isoTime(at), 'agent');
    writePushEvents(store, id, 'conversation.closed', at);
    const closed = store.conversationById(id) as Conversation;
    return { conversation: closed, closed: true, contact: isContact(store, closed.verified_agent) };
  });
}

/** Reopens a closed conversation, whoever closed it; its status again says who wrote last. */
export function reopen(store: Store, id: string, at = Date.now()): void {
  store.transaction(() => {
    const conversation = existing(store, id);
    if (conversation.status !== 'closed') throw refuse('not_closed', id);
    const ownerWroteLast = conversation.latest_owner_seq === conversation.last_seq;
    store.setStatus(id, ownerWroteLast ? 'answered' : 'open', isoTime(at));
    writePushEvents(store, id, 'conversation.reopened', at);
  });
}
