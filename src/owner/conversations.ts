// The owner's commands on conversations: the inbox, answer, close and reopen, watch. (Blocks and
// contacts are in senders.ts, one conversation whole in show.ts.)

import { keepRunning } from '../base/background.ts';
import { watchOtherCommits } from '../store/other-commits.ts';
import { close, reopen } from '../rules/closing.ts';
import { ownerReply } from '../rules/conversations.ts';
import { Refusal } from '../refusals/refusal.ts';
import type { Store } from '../store/store.ts';
import { shownBody, shownQuestion, shownShort } from '../base/terminal.ts';
import type { LogEntry } from '../base/log.ts';
import { messageText } from '../rules/validate.ts';
import { askedOf, isQuestion } from '../rules/questions.ts';
import { inbox } from './inbox.ts';
import { asClause, quotasIn, readStdin, findConversation, OwnerError, type Command } from './command.ts';
import { agentLabel, chosenWords, when } from './printing.ts';

const WATCH_INTERVAL_MS = 1000; // how often `watch` asks the database for new client messages

export const conversationCommands: Record<string, Command> = {
  inbox: {
    usage: 'inbox [--all] [--json]',
    options: { all: { type: 'boolean' }, json: { type: 'boolean' } },
    summary:
      'conversations with an open question first (soonest reply-by on top, choices numbered), then those ' +
      'waiting for a reply (longest waiting on top), then blocked ones, then the rest; --all adds closed ones',
    run: ({ values, store }) => inbox(store, values.all === true, values.json === true),
  },
  reply: {
    usage: 'reply <id> [--choose <n>] <text…> | reply <id> [--choose <n>] -  [--force]',
    options: { force: { type: 'boolean' }, choose: { type: 'string' } },
    textAfterId: true,
    summary:
      'answer as the owner; "-" reads the text from stdin; --choose N, right after the id, answers the open ' +
      "question with its choice N (or a choice's text), the text then optional; --force sends even at the " +
      'daily maximum',
    run: async ({ positionals: [id, ...words], values, store, config }) => {
      const conversation = findConversation(store, id);
      const choose = values.choose as string | undefined;
      if (words.length === 0 && choose === undefined)
        throw new OwnerError('give the reply text, or - to read it from stdin');
      const fromStdin = words.length === 1 && words[0] === '-';
      const raw = words.length === 0 ? null : fromStdin ? await readStdin() : words.join(' ');
      // an editor's final newline is not part of the reply
      const text = raw === null ? null : validReply(raw.replace(/\n$/, ''));
      const { quotas } = quotasIn(store, config);
      const message = ownerReply(store, conversation.id, text, {
        at: Date.now(),
        dailyMaximum: quotas.dailyMaximum,
        force: values.force === true,
        ...(choose !== undefined && { choose }),
      });
      const chose = message.choice_for_seq == null ? '' : `, choosing ${chosenWords(message)}`;
      console.log(`Replied to ${conversation.id} as seq ${message.seq}${chose}.`);
    },
  },
  close: {
    usage: 'close <id>',
    summary: 'close a conversation: still readable by the client, follow-ups get 410',
    run: ({ positionals, store }) => change(store, positionals[0], 'Closed', (id) => close(store, id)),
  },
  reopen: {
    usage: 'reopen <id>',
    summary: 'reopen a closed conversation',
    run: ({ positionals, store }) => change(store, positionals[0], 'Reopened', (id) => reopen(store, id)),
  },
  watch: {
    usage: 'watch',
    summary: 'print each new client message as it arrives; Ctrl-C ends it',
    run: ({ store }) => watch(store),
  },
};

function change(store: Store, idOrPrefix: string | undefined, done: string, rule: (id: string) => void): void {
  const { id } = findConversation(store, idOrPrefix);
  rule(id);
  console.log(`${done} ${id}.`);
}

function validReply(text: string): string {
  try {
    return messageText(text);
  } catch (err) {
    if (err instanceof Refusal) throw new OwnerError(`the reply was not sent: ${asClause(err.message)}`);
    throw err;
  }
}

function watch(store: Store): Promise<void> {
  // The starting point is taken before saying so: a message sent once the line is read is
  // stamped later, and shows. After that, messages stamped at or after the newest printed
  // one are asked for, skipping those printed: one of the same millisecond may commit later.
  let since = new Date().toISOString();
  console.log('Watching for new client messages; Ctrl-C ends.');
  let printedAtSince = new Set<string>();
  const closes = { since, printed: new Set<string>() };
  const othersCommitted = watchOtherCommits(store); // the server's writes are another connection's commits
  let unread = false; // a read that failed is tried again on the next tick, commit or not
  // What failed is said, shown inert: an error's message may quote stored text (a JSON parse does)
  const complain = (entry: LogEntry) =>
    console.error(`error: cannot read new messages now (${shownShort(String(entry.error), 300)}); trying again`);
  return new Promise((resolve) => {
    const tick = () => {
      if (!othersCommitted() && !unread) return;
      unread = true;
      for (const message of store.owner.clientMessagesSince(since)) {
        const key = `${message.conversation_id}/${message.seq}`;
        if (message.created_at === since && printedAtSince.has(key)) continue;
        if (message.created_at !== since) printedAtSince = new Set();
        since = message.created_at;
        printedAtSince.add(key);
        const sender = agentLabel(store, message.metadata, message.verified_agent);
        console.log(`\n${when(message.created_at)}  ${message.conversation_id}  #${message.seq}  ${sender}`);
        console.log(shownBody(message.message));
        if (isQuestion(message)) {
          const question = { ...askedOf(message), state: 'open' };
          console.log(shownQuestion(question, Date.now()));
        }
      }
      printAgentCloses(store, closes);
      unread = false;
    };
    const timer = setInterval(keepRunning('watch', tick, complain), WATCH_INTERVAL_MS);
    const stop = () => {
      clearInterval(timer);
      console.log('Stopped watching.');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Prints each conversation its agent closed since the last call, once: `closed by the agent`. */
function printAgentCloses(store: Store, closes: { since: string; printed: Set<string> }): void {
  for (const closed of store.owner.agentClosesSince(closes.since)) {
    const key = `${closed.id}/${closed.changed_at}`;
    if (closes.printed.has(key)) continue;
    if (closed.changed_at !== closes.since) closes.printed = new Set();
    closes.since = closed.changed_at;
    closes.printed.add(key);
    const sender = agentLabel(store, closed.metadata, closed.verified_agent);
    console.log(`\n${when(closed.changed_at)}  ${closed.id}  closed by the agent  ${sender}`);
  }
}
