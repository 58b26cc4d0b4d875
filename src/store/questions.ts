// The SQL of questions (rules/questions.ts decides what they mean): a conversation's newest question,
// found through the partial index of questions, and the owner message that answers it.

import type { DatabaseSync } from 'node:sqlite';
import { MESSAGE, type Message } from './rows.ts';

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    // Asked by every poll: without statistics the planner would walk the conversation's messages back by
    // the primary key, all of them when it asked no question; the partial index finds it at once.
    newest: sql(`SELECT ${MESSAGE} FROM messages INDEXED BY messages_questions
       WHERE conversation_id = ? AND (choices IS NOT NULL OR reply_by IS NOT NULL) ORDER BY seq DESC LIMIT 1`),
    // ?3 = 1: a question without choices, which any owner message after it answers
    answer: sql(`SELECT ${MESSAGE} FROM messages
       WHERE conversation_id = ?1 AND seq > ?2 AND author = 'owner' AND (choice_for_seq = ?2 OR ?3)
       ORDER BY seq LIMIT 1`),
  };
}

export class QuestionRows {
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
  }

  /** The conversation's newest client message that carries choices or a reply-by time. */
  newest(conversationId: string): Message | undefined {
    return this.#sql.newest.get(conversationId) as Message | undefined;
  }
  /** The first owner message after the question `seq` that chose for it (or, with `anyReply`, any owner message). */
  answer(conversationId: string, seq: number, anyReply: boolean): Message | undefined {
    return this.#sql.answer.get(conversationId, seq, anyReply ? 1 : 0) as Message | undefined;
  }
}
