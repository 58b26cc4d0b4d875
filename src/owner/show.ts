// The owner's commands that read one conversation whole: `show` (for the terminal, or --json) and
// `export` (JSON Lines). Who wrote is shown as it is known: the self-declared name, and the identity
// a Web Bot Auth signature proved for the opening and for each client message, or unverified.

import { storedMetadata } from '../base/stored-json.ts';
import { shown, shownBody, shownQuestion, verifiedLabel } from '../base/terminal.ts';
import { messageView } from '../rules/views.ts';
import { currentQuestion, questionsIn } from '../rules/questions.ts';
import type { Conversation, Message, Store } from '../store/store.ts';
import { findConversation, type Command } from './command.ts';
import { agentLabel, chosenWords, counted, when } from './printing.ts';
import { isContact } from '../rules/contacts.ts';

export const showCommands: Record<string, Command> = {
  show: {
    usage: 'show <id> [--json]',
    options: { json: { type: 'boolean' } },
    summary: 'the whole history of one conversation (an unambiguous id prefix is enough)',
    run: ({ positionals, values, store }) => show(store, findConversation(store, positionals[0]), values.json === true),
  },
  export: {
    usage: 'export [<id>]',
    summary: 'conversations with their messages as JSON Lines on stdout (never a credential or its hash)',
    run: ({ positionals: [id], store }) => {
      const conversations = id === undefined ? store.owner.allConversations() : [findConversation(store, id)];
      for (const c of conversations) {
        process.stdout.write(`${JSON.stringify(conversationJson(store, c, allMessages(store, c)))}\n`);
      }
    },
  },
};

function allMessages(store: Store, conversation: Conversation): Message[] {
  return store.messagesAfter(conversation.id, 0, conversation.last_seq);
}

function conversationJson(store: Store, conversation: Conversation, messages: Message[]) {
  const { id, status, blocked, blocked_by, created_at, expires_at, metadata, verified_agent } = conversation;
  return {
    id,
    status,
    closed_by: conversation.closed_by,
    blocked: blocked === 1,
    // blocked with its sender or its site (null: alone, or not blocked): unblock --sender or --site lifts it
    blocked_with: blocked_by === null ? null : blocked_by.startsWith('site:') ? 'site' : 'sender',
    created_at,
    expires_at,
    metadata: storedMetadata(metadata) ?? {},
    ...(storedMetadata(metadata) === undefined && { metadata_damaged: true }),
    metadata_verified: false,
    verified_agent,
    contact: isContact(store, verified_agent),
    question: currentQuestion(store, id, Date.now()), // the newest question and its state, or null
    messages: messages.map(messageView),
  };
}

function show(store: Store, conversation: Conversation, json: boolean): void {
  const messages = allMessages(store, conversation);
  const pushes = pushTargets(store, conversation.id);
  if (json) {
    return void console.log(JSON.stringify({ ...conversationJson(store, conversation, messages), pushes }, null, 2));
  }
  console.log(`Conversation ${conversation.id}`);
  const closer = conversation.closed_by === 'agent' ? ' (by the agent)' : '';
  console.log(`  status      ${conversation.status}${closer}${blockedNote(conversation)}`);
  console.log(`  opened      ${when(conversation.created_at)}, credential expires ${when(conversation.expires_at)}`);
  console.log(`  from        ${agentLabel(store, conversation.metadata, conversation.verified_agent)}`);
  const metadata = storedMetadata(conversation.metadata);
  if (metadata === undefined) console.log('  metadata    damaged in the database (not a JSON object): shown as none');
  for (const [key, value] of Object.entries(metadata ?? {})) {
    console.log(`  ${shown(key).padEnd(11)} ${shown(value)} (unverified)`);
  }
  // An agent that lost its credential is told to open a new conversation naming the old id.
  for (const id of store.owner.conversationsNamedIn(conversation.id, messages)) {
    console.log(`  names       conversation ${id}: the agent wrote its id`);
  }
  for (const id of store.owner.conversationsNaming(conversation.id)) {
    console.log(`  named by    conversation ${id}: its agent wrote this id`);
  }
  for (const push of pushes) {
    const label = push.kind === 'webhook' ? 'webhook' : 'a2a push';
    console.log(`  ${label.padEnd(11)} ${shown(push.url)} (registered ${when(push.created_at)})`);
    console.log(`              ${deliveryState(push)}`);
  }
  const questions = questionsIn(messages, Date.now());
  for (const message of messages) {
    const chose = message.choice_for_seq == null ? '' : `  chose ${chosenWords(message)}`;
    console.log(`\n#${message.seq}  ${author(store, message)}  ${when(message.created_at)}${chose}`);
    console.log(shownBody(message.message));
    const question = questions.get(message.seq);
    if (question) console.log(shownQuestion(question, Date.now()));
  }
}

/** Who wrote a message: you, or the client, with the identity that signed it (a contact's as such), or unverified. */
function author(store: Store, message: Message): string {
  if (message.author === 'owner') return 'you (owner)';
  if (message.verified_agent === null) return 'client (unverified)';
  return `client (${verifiedLabel(message.verified_agent, isContact(store, message.verified_agent))})`;
}

/** Why a conversation is blocked: alone, or with its sender or site (unblock --sender or --site lifts that). */
function blockedNote(conversation: Conversation): string {
  if (!conversation.blocked) return '';
  const by = conversation.blocked_by;
  if (by === null) return ' (blocked)';
  if (by.startsWith('site:')) return ` (blocked with the site ${shown(by.slice('site:'.length))})`;
  const sender = by.startsWith('agent:') ? 'its sender, the verified agent' : "its sender's address";
  return ` (blocked with ${sender})`;
}

/** Where the agent asked to be told of replies, and how delivery went: never a secret or token. */
function pushTargets(store: Store, conversationId: string) {
  return store.outbox.targets(conversationId).map((target) => ({
    kind: target.kind,
    url: target.url,
    created_at: target.created_at,
    last_attempt_at: target.last_attempt_at,
    last_outcome: target.last_outcome,
    failures_in_a_row: target.failures,
    events_waiting: store.outbox.pending(target.id),
  }));
}

function deliveryState(push: ReturnType<typeof pushTargets>[number]): string {
  const waiting = `${counted(push.events_waiting, 'event')} waiting`;
  if (push.last_attempt_at === null) return `nothing sent yet; ${waiting}`;
  const failures = push.failures_in_a_row === 1 ? '1 failure' : `${push.failures_in_a_row} failures`;
  const outcome = shown(push.last_outcome ?? '');
  return `last attempt ${when(push.last_attempt_at)}: ${outcome}; ${failures} in a row; ${waiting}`;
}
