// Telling an agent that the owner wrote: the rules for where it asked to be told (a webhook
// registered with its credential; A2A push notification configs use the same table) and
// the thin events written to the outbox, in the same transaction as the write that causes
// them, whichever process writes it. The server delivers them (deliveries.ts).

import { randomBytes, randomUUID } from 'node:crypto';
import { refuse } from '../refusals/refusal.ts';
import type { Conversation, Store } from '../store/store.ts';
import type { PushTarget } from '../store/outbox.ts';
import { isoTime } from '../base/time.ts';

/** What happened: the owner replied, closed or reopened the conversation, or its agent closed it. */
export type EventType = 'conversation.replied' | 'conversation.closed' | 'conversation.reopened';
export const EVENT_TYPES: readonly EventType[] = [
  'conversation.replied',
  'conversation.closed',
  'conversation.reopened',
];

/**
 * A thin event: what changed and where to read it, never the message text or a credential.
 * The agent reads the messages with its credential, as it always does.
 */
export interface ThinEvent {
  readonly type: EventType;
  readonly timestamp: string;
  readonly data: {
    readonly conversation_id: string;
    readonly status: string;
    readonly last_seq: number;
    readonly latest_owner_seq: number;
    /** who closed it, on a conversation.closed event: 'agent' or 'owner' */
    readonly closed_by?: string;
  };
}

/** Writes one event per target of the conversation, as it is after the owner's write. */
export function writePushEvents(store: Store, conversationId: string, type: EventType, at: number): void {
  const targets = store.outbox.targets(conversationId);
  if (targets.length === 0) return;
  const conversation = store.conversationById(conversationId) as Conversation;
  const event: ThinEvent = {
    type,
    timestamp: isoTime(at),
    data: {
      conversation_id: conversation.id,
      status: conversation.status,
      last_seq: conversation.last_seq,
      latest_owner_seq: conversation.latest_owner_seq,
      ...(type === 'conversation.closed' && { closed_by: conversation.closed_by ?? 'owner' }),
    },
  };
  const json = JSON.stringify(event);
  for (const target of targets) store.outbox.insertEvent(`msg_${randomUUID()}`, target.id, json, at);
}

/** A webhook as its agent may see it again: never the secret. */
export function webhookView(target: PushTarget, pending: number) {
  return {
    url: target.url,
    created_at: target.created_at,
    events: EVENT_TYPES,
    last_attempt_at: target.last_attempt_at,
    last_outcome: target.last_outcome,
    failures_since_last_success: target.failures,
    pending_events: pending,
  };
}

/**
 * Registers (or replaces) the conversation's webhook; the URL was checked by the caller
 * against the outbound rules. Returns the new signing secret, shown to the agent this once.
 */
export function registerWebhook(store: Store, conversationId: string, url: string, at: number) {
  return store.transaction(() => {
    if (!store.conversationById(conversationId)) throw refuse('unknown_credential'); // purged meanwhile
    const replaced = store.outbox.deleteTargets(conversationId, 'webhook') > 0;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const target = {
      id: `wh_${randomUUID()}`,
      conversation_id: conversationId,
      kind: 'webhook' as const,
      config_id: null,
      url,
      secret,
      token: null,
      auth_scheme: null,
      auth_credentials: null,
      created_at: isoTime(at),
    };
    store.outbox.insertTarget(target);
    return {
      replaced,
      view: { ...webhookView({ ...target, last_attempt_at: null, last_outcome: null, failures: 0 }, 0), secret },
    };
  });
}

/** The conversation's webhook, or a refusal when it has none. */
export function webhookOf(store: Store, conversationId: string) {
  const target = store.outbox.targets(conversationId, 'webhook')[0];
  if (!target) throw refuse('no_webhook');
  return webhookView(target, store.outbox.pending(target.id));
}

/** Removes the conversation's webhook and its undelivered events. */
export function removeWebhook(store: Store, conversationId: string): void {
  store.transaction(() => {
    if (store.outbox.deleteTargets(conversationId, 'webhook') === 0) throw refuse('no_webhook');
  });
}

/** Push notification configs a task may hold at once. */
export const MAX_PUSH_CONFIGS = 5;

/** An A2A push notification config, as its client gave it (the URL already checked by the caller). */
export interface PushConfigInput {
  readonly id: string | null; // the client's id, or null for one of the server's own
  readonly url: string;
  readonly token: string | null;
  readonly scheme: string | null;
  readonly credentials: string | null;
}

/** Registers a push config on the conversation (replacing one of the same id); at most MAX_PUSH_CONFIGS. */
export function registerPushConfig(store: Store, conversationId: string, config: PushConfigInput, at: number) {
  return store.transaction(() => {
    if (!store.conversationById(conversationId)) throw refuse('unknown_credential'); // purged meanwhile
    // The client's id names the config within its task only; the row's own id is the service's.
    const configId = config.id ?? randomUUID();
    store.outbox.deleteConfig(conversationId, configId);
    if (store.outbox.targets(conversationId, 'a2a').length >= MAX_PUSH_CONFIGS) {
      throw refuse('too_many_push_configs', MAX_PUSH_CONFIGS);
    }
    const target = {
      id: `pc_${randomUUID()}`,
      conversation_id: conversationId,
      kind: 'a2a' as const,
      config_id: configId,
      url: config.url,
      secret: null,
      token: config.token,
      auth_scheme: config.scheme,
      auth_credentials: config.credentials,
      created_at: isoTime(at),
    };
    store.outbox.insertTarget(target);
    return target;
  });
}

/** The conversation's push configs, oldest first. */
export function pushConfigsOf(store: Store, conversationId: string): PushTarget[] {
  return store.outbox.targets(conversationId, 'a2a');
}

/** One push config of the conversation, or a refusal. */
export function pushConfigOf(store: Store, conversationId: string, id: string): PushTarget {
  const found = pushConfigsOf(store, conversationId).find((target) => target.config_id === id);
  if (!found) throw refuse('no_push_config');
  return found;
}

/** Removes one push config and its undelivered events. */
export function removePushConfig(store: Store, conversationId: string, id: string): void {
  store.transaction(() => {
    if (!store.outbox.deleteConfig(conversationId, id)) throw refuse('no_push_config');
  });
}
