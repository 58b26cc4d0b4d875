// The two writes every door makes for a client, an opening and a follow-up: group-committed
// (store/group-commit.ts), then told to the owner's notifier. What a door writes beside the
// message (an A2A push notification config) goes in the same transaction; when it needs
// outbound work first (a lookup of the push URL's host), that work is done only for a message
// its rule would accept now, judged by a rehearsal of the rule that writes nothing.

import { siteOf } from '../base/sites.ts';
import { storedMetadata } from '../base/stored-json.ts';
import type { Batch } from '../store/group-commit.ts';
import type { Conversation, Store } from '../store/store.ts';
import { closeByAgent } from '../rules/closing.ts';
import {
  followUp,
  openConversation,
  type ClientWrite,
  type FollowUpInput,
  type Opening,
} from '../rules/conversations.ts';
import { NO_QUESTION, questionColumns, type QuestionInput } from '../rules/questions.ts';
import type { SignatureUse } from '../rules/signatures.ts';
import { creationResult, messageView } from '../rules/views.ts';
import type { RunningConfig } from '../base/config.ts';
import type { createNotifier } from './notify.ts';

/** Who writes: the client's address, and the identity that signed the request with its signature (null: unverified). */
export interface Client {
  readonly address: string;
  readonly agent: string | null;
  readonly signature: SignatureUse | null;
}

/** What a door writes beside the message: made ready (its outbound checks done), then written. */
export type AlsoWrite = () => Promise<(conversationId: string) => void>;

/**
 * `also` made ready only once a rehearsal of `rule` (its whole judgement, nothing written) would
 * accept the message; an identical retry, which writes nothing, needs nothing made ready.
 */
async function afterRehearsal<T>(store: Store, rule: () => T, also: AlsoWrite) {
  const rehearsal = store.rehearse(rule) as T & { duplicate?: boolean };
  return rehearsal.duplicate === true ? undefined : also();
}

/** A question as the notifier is told of it: its choices, and its reply-by time as stored. */
function asked(question: QuestionInput = NO_QUESTION) {
  return { choices: question.choices, replyBy: questionColumns(question).reply_by };
}

export function clientWrites(
  store: Store,
  batch: Batch,
  clientWrite: (client: Client) => ClientWrite,
  notifyOwner: ReturnType<typeof createNotifier>,
  config: RunningConfig,
) {
  return {
    /**
     * Opens a conversation and tells the owner; the creation result holds the one-time
     * credential. `also` is written in the same transaction (a door's push notification config).
     */
    async open(opening: Opening, client: Client, also?: AlsoWrite) {
      const rule = () => openConversation(store, opening, clientWrite(client));
      const alsoWrite = also && (await afterRehearsal(store, rule, also));
      const opened = await batch(() =>
        store.transaction(() => {
          const written = rule();
          alsoWrite?.(written.conversation.id);
          return written;
        }),
      );
      notifyOwner({
        conversationId: opened.conversation.id,
        seq: 1,
        agentName: opening.metadata.agent_name ?? '',
        verifiedAgent: client.agent,
        contact: opened.contact,
        message: opening.message,
        ...asked(opening.question),
      });
      return creationResult(opened, config.publicBaseUrl, config.pollIntervalSeconds);
    },

    /** Stores a follow-up (or finds its identical retry) and tells the owner of a new one. */
    async followUp(
      conversation: Conversation,
      input: FollowUpInput,
      client: Client,
      also?: AlsoWrite,
    ) {
      const rule = () => followUp(store, conversation.id, input, clientWrite(client));
      const alsoWrite = also && (await afterRehearsal(store, rule, also));
      const result = await batch(() =>
        store.transaction(() => {
          const written = rule();
          if (!written.duplicate) alsoWrite?.(conversation.id); // a retry writes nothing, as the rule says
          return written;
        }),
      );
      if (!result.duplicate) {
        const agentName = storedMetadata(conversation.metadata)?.agent_name ?? '';
        const seq = result.message.seq;
        const { contact } = result;
        const verifiedAgent = client.agent;
        const { message } = input;
        const conversationId = conversation.id;
        notifyOwner({ conversationId, seq, agentName, verifiedAgent, contact, message, ...asked(input.question) });
      }
      return { message: messageView(result.message), duplicate: result.duplicate };
    },

    /**
     * The agent closes its conversation (idempotent); the owner is told when it was open. The
     * conversation as it is now, for each door to show.
     */
    async close(conversation: Conversation, client: Client): Promise<Conversation> {
      const { at } = clientWrite(client);
      const done = await batch(() => closeByAgent(store, conversation.id, at));
      if (done.closed) {
        const opener = conversation.verified_agent; // who the owner knows the conversation by
        notifyOwner({
          event: 'closed',
          conversationId: conversation.id,
          seq: done.conversation.last_seq,
          agentName: storedMetadata(conversation.metadata)?.agent_name ?? '',
          verifiedAgent: opener,
          contact: opener !== null && store.contacts.isContact(opener, siteOf(opener)),
          message: 'The agent closed this conversation: its follow-ups now get 410. You may still reply or reopen it.',
        });
      }
      return done.conversation;
    },
  };
}

