// The SQL that only the owner script runs: the inbox, every conversation for an export, client
// messages since a time for `watch`, ids by prefix, and the conversations that name another one
// (an agent that lost its credential opens a new conversation naming the old id).

import type { DatabaseSync } from 'node:sqlite';
import { CONVERSATION, type Conversation, type Message } from './rows.ts';

export interface InboxRow extends Conversation {
  readonly last_message_at: string;
  readonly last_message: string;
  readonly last_author: 'client' | 'owner';
}
export interface ClientMessage extends Message {
  readonly conversation_id: string;
  readonly metadata: string;
}

/** A conversation its agent closed, as `watch` prints it. */
export interface AgentClose {
  readonly id: string;
  readonly changed_at: string;
  readonly metadata: string;
  readonly verified_agent: string | null;
}

/** A verified agent as `agents` lists it: the conversations it signed messages in (ids, comma-separated). */
export interface AgentRow {
  readonly identity: string;
  readonly conversation_ids: string;
  readonly messages: number;
  readonly last_seen: string;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  const inConversation = CONVERSATION.split(', ')
    .map((column) => `c.${column}`)
    .join(', ');
  return {
    inbox: sql(`SELECT ${inConversation},
              m.created_at AS last_message_at, m.message AS last_message, m.author AS last_author
       FROM conversations c JOIN messages m ON m.conversation_id = c.id AND m.seq = c.last_seq
       WHERE ? OR c.status <> 'closed'
       -- waiting for the owner first, the longest-waiting on top; then blocked ones; then the rest, newest first
       ORDER BY c.status = 'open' AND c.blocked = 0 DESC, c.blocked DESC,
                CASE WHEN c.status = 'open' THEN m.created_at END ASC, m.created_at DESC`),
    allConversations: sql(`SELECT ${CONVERSATION} FROM conversations ORDER BY created_at, id`),
    idsByPrefix: sql('SELECT id FROM conversations WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id LIMIT 2'),
    exists: sql('SELECT 1 FROM conversations WHERE id = ?'),
    clientMessagesSince: sql(`SELECT m.conversation_id, m.seq, m.author, m.message, m.created_at, m.verified_agent,
              m.choices, m.reply_by, c.metadata
       FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.author = 'client' AND m.created_at >= ? ORDER BY m.created_at, m.conversation_id, m.seq`),
    // Conversations their agent closed, for `watch`: the close is their newest change, unless the owner
    // has replied since (a last word keeps it closed, and moves changed_at to the reply).
    agentClosesSince: sql(`SELECT id, changed_at, metadata, verified_agent FROM conversations c
       WHERE closed_by = 'agent' AND changed_at >= ? AND NOT EXISTS (SELECT 1 FROM messages m
         WHERE m.conversation_id = c.id AND m.seq = c.last_seq AND m.author = 'owner' AND m.created_at = c.changed_at)
       ORDER BY changed_at, id`),
    // The verified agents seen: a scan of the messages, which the owner runs for `agents`, never a request.
    agents: sql(`SELECT verified_agent AS identity, group_concat(DISTINCT conversation_id) AS conversation_ids,
              count(*) AS messages, max(created_at) AS last_seen
       FROM messages WHERE verified_agent IS NOT NULL GROUP BY verified_agent ORDER BY last_seen DESC`),
    // A scan of the client messages: the owner runs it for one `show`, never a request.
    namedBy: sql(`SELECT DISTINCT conversation_id AS id FROM messages
       WHERE author = 'client' AND conversation_id <> ?1 AND instr(lower(message), ?1) > 0
       ORDER BY conversation_id LIMIT 20`),
  };
}

export class OwnerQueries {
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
  }

  /** Waiting conversations first, then blocked ones, then the rest; closed ones only with `includeClosed`. */
  inbox(includeClosed: boolean): InboxRow[] {
    return this.#sql.inbox.all(includeClosed ? 1 : 0) as unknown as InboxRow[];
  }
  allConversations(): Conversation[] {
    return this.#sql.allConversations.all() as unknown as Conversation[];
  }
  /** Up to two ids starting with `prefix`: one means the prefix is unambiguous. */
  conversationIdsByPrefix(prefix: string): string[] {
    return (this.#sql.idsByPrefix.all(prefix) as { id: string }[]).map((row) => row.id);
  }
  /** Client messages stamped at or after `since`, oldest first, with their conversation's metadata. */
  clientMessagesSince(since: string): ClientMessage[] {
    return this.#sql.clientMessagesSince.all(since) as unknown as ClientMessage[];
  }
  /** Other conversations whose id the agent wrote in these messages (at most 20). */
  conversationsNamedIn(conversationId: string, messages: readonly Message[]): string[] {
    const named = new Set<string>();
    for (const message of messages) {
      if (message.author !== 'client') continue;
      for (const [id] of message.message.toLowerCase().matchAll(UUID)) {
        if (id !== conversationId && named.size < 20 && this.#sql.exists.get(id)) named.add(id);
      }
    }
    return [...named];
  }
  /** Conversations their agent closed at or after `since` (ISO 8601), oldest first. */
  agentClosesSince(since: string): AgentClose[] {
    return this.#sql.agentClosesSince.all(since) as unknown as AgentClose[];
  }
  /** Every identity that signed a message, with how many conversations and messages it signed, and when last. */
  agents(): AgentRow[] {
    return this.#sql.agents.all() as unknown as AgentRow[];
  }
  /** Other conversations whose client messages name this one's id (at most 20). */
  conversationsNaming(conversationId: string): string[] {
    return (this.#sql.namedBy.all(conversationId) as { id: string }[]).map((row) => row.id);
  }
}
