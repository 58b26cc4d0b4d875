// The writes every door makes for a client, an opening, a follow-up and a close: each its rule's one
// transaction, group-committed (store/group-commit.ts), then told to the owner's notifier when there
// is one (NOTIFY_COMMAND). What a door writes beside the message (an A2A push notification config)
// goes in the rule's transaction; when it needs outbound work first (a lookup of the push URL's
// host), that work is done only for a message its rule would accept now, judged by a rehearsal of
// the rule that writes nothing.

import { randomBytes } from 'node:crypto';
import type { RunningConfig } from '../base/config.ts';
import { storedMetadata } from '../base/stored-json.ts';
import { closeByAgent } from '../rules/closing.ts';
import {
  followUp,
  openConversation,
  type FollowUpInput,
  type Opening,
  type WriteFacts,
} from '../rules/conversations.ts';
import { NO_QUESTION, questionColumns, type QuestionInput } from '../rules/questions.ts';
import { addressKey, type Quotas } from '../rules/quotas.ts';
import type { SignatureUse } from '../rules/signatures.ts';
import { creationResult, messageView } from '../rules/views.ts';
import type { Batch } from '../store/group-commit.ts';
import type { Conversation, Store } from '../store/store.ts';
import type { Notifier } from './notify.ts';

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

/** What the client writes need of the app. `notifyOwner` is null when no NOTIFY_COMMAND is set. */
export interface WriteDeps {
  readonly store: Store;
  readonly batch: Batch;
  readonly quotas: Quotas;
  readonly now: () => number;
  readonly notifyOwner: Notifier | null;
  readonly config: RunningConfig;
}

export function createClientWrites({ store, batch, quotas, now, notifyOwner, config }: WriteDeps) {
  // The key of the addresses' hashes: kept in the database so that counts survive a restart.
  const addressSecret = store.transaction(() => store.settingOnce('address_key', randomBytes(32).toString('hex')));
  /** What the rules are told of a client's write, at the moment it is written. */
  const factsOf = (client: Client): WriteFacts => ({
    at: now(),
    quotas,
    addressHash: addressKey(addressSecret, client.address),
    agent: client.agent,
    signature: client.signature,
  });

  return {
    /**
     * Opens a conversation and tells the owner; the creation result holds the one-time
     * credential. `also` is written in the rule's transaction (a door's push notification config).
     */
    async open(opening: Opening, client: Client, also?: AlsoWrite) {
      const alsoWrite =
        also && (await afterRehearsal(store, () => openConversation(store, opening, factsOf(client)), also));
      const opened = await batch(() => openConversation(store, opening, factsOf(client), alsoWrite));
      notifyOwner?.({
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
    async followUp(conversation: Conversation, input: FollowUpInput, client: Client, also?: AlsoWrite) {
      const { id } = conversation;
      const alsoWrite = also && (await afterRehearsal(store, () => followUp(store, id, input, factsOf(client)), also));
      const result = await batch(() => followUp(store, id, input, factsOf(client), alsoWrite));
      if (!result.duplicate && notifyOwner) {
        notifyOwner({
          conversationId: id,
          seq: result.message.seq,
          agentName: storedMetadata(conversation.metadata)?.agent_name ?? '',
          verifiedAgent: client.agent,
          contact: result.contact,
          message: input.message,
          ...asked(input.question),
        });
      }
      return { message: messageView(result.message), duplicate: result.duplicate };
    },

    /**
     * The agent closes its conversation (idempotent); the owner is told when it was open. The
     * conversation as it is now, for each door to show.
     */
    async close(conversation: Conversation): Promise<Conversation> {
      const done = await batch(() => closeByAgent(store, conversation.id, now()));
      if (done.closed && notifyOwner) {
        const opener = conversation.verified_agent; // who the owner knows the conversation by
        notifyOwner({
          event: 'closed',
          conversationId: conversation.id,
          seq: done.conversation.last_seq,
          agentName: storedMetadata(conversation.metadata)?.agent_name ?? '',
          verifiedAgent: opener,
          contact: done.contact,
          message: 'The agent closed this conversation: its follow-ups now get 410. You may still reply or reopen it.',
        });
      }
      return done.conversation;
    },
  };
}
