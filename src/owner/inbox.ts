// The owner's inbox: conversations with an open question first (the soonest reply_by on top, each
// question's choices numbered as `reply --choose` takes them), then those waiting for a reply, then
// blocked ones, then the rest. Every agent string goes through base/terminal.ts.

import { shown, shownShort } from '../base/terminal.ts';
import { deadlineWords } from '../base/time.ts';
import { currentQuestion, type QuestionView } from '../rules/questions.ts';
import type { InboxRow } from '../store/owner-queries.ts';
import type { Store } from '../store/store.ts';
import { agentLabel, agentName, oneLine, when } from './printing.ts';
import { isContact } from '../rules/contacts.ts';

// Where a conversation's question line starts: below its id, never where a row of the inbox starts.
const QUESTION_INDENT = ' '.repeat(8);

type Row = InboxRow & { question: QuestionView | null };

/** Whether a conversation's question waits for the owner: open, and the conversation takes a reply. */
const asking = (row: Row) => row.question?.state === 'open' && row.status !== 'closed' && row.blocked === 0;

/** Open questions first, the soonest reply_by on top (none after them); then as the query put them. */
function byQuestion(a: Row, b: Row): number {
  if (asking(a) !== asking(b)) return asking(a) ? -1 : 1;
  if (!asking(a)) return 0;
  const deadline = (row: Row) => (row.question?.reply_by ? Date.parse(row.question.reply_by) : Infinity);
  return deadline(a) - deadline(b) || 0; // two without a deadline: Infinity - Infinity is NaN
}

export function inbox(store: Store, all: boolean, json: boolean, now = Date.now()): void {
  const rows = store.owner
    .inbox(all)
    .map((row) => ({ ...row, question: currentQuestion(store, row.id, now) }))
    .sort(byQuestion); // stable: the query's order within each part
  if (json) return void console.log(JSON.stringify(rows.map((row) => inboxJson(store, row)), null, 2));
  if (rows.length === 0)
    return void console.log(
      all ? 'No conversations yet.' : 'No open or answered conversations. (--all shows closed ones.)',
    );
  for (const row of rows) {
    const mark = row.blocked ? 'BLOCKED ' : asking(row) ? 'ASKING  ' : row.status === 'open' ? 'WAITING ' : '        ';
    const sender = agentLabel(store, row.metadata, row.verified_agent);
    const status = row.closed_by === 'agent' ? 'closed by the agent' : row.status.padEnd(9);
    console.log(
      `${mark}${row.id}  ${status} ${messageCount(row.last_seq)}  last ${when(row.last_message_at)}  ` +
        `${sender}  ${row.last_author}: "${shownShort(row.last_message, 60)}"`,
    );
    if (row.question !== null) console.log(questionLine(row.question, now));
  }
}

/** `#3 reply by 14:00 UTC (in 3 h): 1. Yes  2. No`, `#3 expired 2 h ago: …`, or `#3 answered: 2. No`. */
function questionLine(question: QuestionView, now: number): string {
  const choices = (question.choices ?? []).map((choice, i) => `${i + 1}. ${shownShort(choice, 40)}`).join('  ');
  const deadline = question.reply_by === null ? 'no reply-by time' : deadlineWords(question.reply_by, now);
  const state = question.state === 'answered' ? 'answered' : deadline;
  return `${QUESTION_INDENT}#${question.seq} ${shown(state)}${choices ? `: ${choices}` : ''}`;
}

function inboxJson(store: Store, row: Row) {
  const { id, status, blocked, last_seq, last_message_at, last_author, metadata, last_message, verified_agent } = row;
  return {
    id,
    status,
    closed_by: row.closed_by,
    blocked: blocked === 1,
    waiting_for_reply: status === 'open' && blocked === 0,
    message_count: last_seq,
    last_message_at,
    last_author,
    agent_name: agentName(metadata),
    agent_name_verified: false,
    verified_agent,
    contact: isContact(store, verified_agent),
    preview: oneLine(last_message, 80),
    question: row.question, // the newest question and its state (open, answered, expired), or null
  };
}

function messageCount(count: number): string {
  return `${String(count).padStart(3)} ${count === 1 ? 'message ' : 'messages'}`;
}
