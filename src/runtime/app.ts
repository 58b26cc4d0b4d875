// Everything a handler of any door may use, built once at start-up: configuration, the
// store, the directory snapshot, the clock, the rates, the log, and the two client
// writes, which every door submits the same way: group-committed, then told to the owner.

import { randomBytes } from 'node:crypto';
import { keepRunning } from '../base/background.ts';
import { createStdoutLog, describeError, type Log } from '../base/log.ts';
import { createBatch } from '../store/group-commit.ts';
import { startDeliveries, type DeliveryTiming } from '../outbound/deliveries.ts';
import type { Config } from '../base/config.ts';
import { followUp, openConversation, type ClientWrite, type Opening } from '../rules/conversations.ts';
import { CredentialCache } from './credential-cache.ts';
import { Directory } from '../directory/snapshot.ts';
import { createMetrics } from './metrics.ts';
import { ReplyWaits } from './waits.ts';
import { createPollClock, createRequestBuckets } from '../rules/rates.ts';
import { createNotifier } from './notify.ts';
import { addressKey, quotasOf } from '../rules/quotas.ts';
import { creationResult } from '../rules/views.ts';
import type { Conversation, Store } from '../store/store.ts';

export interface AppOptions {
  /** The clock, in epoch milliseconds; tests inject one to cross the UTC day boundary. */
  readonly now?: () => number;
  /** One JSON object per call; the default writes one line to stdout. */
  readonly log?: Log;
  /** How the outbox is delivered; tests shorten the waits. */
  readonly deliveryTiming?: DeliveryTiming;
}

export type App = ReturnType<typeof createApp>;

const SWEEP_INTERVAL_MS = 60_000; // idle rate entries are dropped once a minute

/**
 * The configuration as the server runs it: the public base URL resolved (its own URL when
 * none was set), and the address it listens on.
 */
export type RunningConfig = Config & { readonly publicBaseUrl: string; readonly listenUrl: string };

export function createApp(config: RunningConfig, store: Store, options: AppOptions = {}) {
  const now = options.now ?? Date.now;
  const metrics = createMetrics();
  const write = options.log ?? createStdoutLog();
  const log: Log = (entry) => {
    metrics.observe(entry);
    write(entry);
  };
  const quotas = quotasOf(config);
  // The key of the addresses' hashes: kept in the database so that counts survive a restart.
  const addressSecret = store.transaction(() => store.settingOnce('address_key', randomBytes(32).toString('hex')));
  const { rates, stopSweeping } = startRates(config, now, log);
  const batch = createBatch(store);
  const waits = new ReplyWaits(store, log);
  const outboundPolicy = { allowedHosts: config.outboundAllowedHosts };
  const stopDeliveries = startDeliveries({ store, policy: outboundPolicy, now, log, timing: options.deliveryTiming });
  const notifyOwner = createNotifier(config.notifyCommand, log);
  const clientWrite = (clientAddress: string) => ({
    at: now(),
    quotas,
    address: addressKey(addressSecret, clientAddress),
  });

  return {
    config,
    store,
    now,
    log,
    /** What is counted in memory: requests per address, and each conversation's poll clock (rules/rates.ts). */
    rates,
    /** What is stored per UTC day and hour (rules/quotas.ts). */
    quotas,
    /** Counted from the log (metrics.ts). */
    metrics,
    directory: new Directory(store),
    /** The conversations credentials open, read through memory (credential-cache.ts). */
    credentials: new CredentialCache(store),
    /** Polls held until the owner writes (waits.ts). */
    waits,

    ...conversationWrites(store, batch, clientWrite, notifyOwner, config),

    /** Any other write of a door (a webhook's registration), group-committed like the messages. */
    write: <T>(rule: () => T): Promise<T> => batch(rule),

    /** An unexpected error, logged once with the request id its client got. */
    logUnexpected: unexpectedErrorLog(log),

    /** The rules every outbound request passes (outbound/guard.ts). */
    outboundPolicy,

    /** Before the server closes: no more deliveries, and every waiting poll answered now. */
    stop() {
      stopSweeping();
      stopDeliveries();
      waits.answerAll();
    },
  };
}

/**
 * The two writes every door makes for a client, each group-committed (store/group-commit.ts) and then told
 * to the owner's notifier: an opening and a follow-up.
 */
function conversationWrites(
  store: Store,
  batch: ReturnType<typeof createBatch>,
  clientWrite: (clientAddress: string) => ClientWrite,
  notifyOwner: ReturnType<typeof createNotifier>,
  config: RunningConfig,
) {
  return {
    /**
     * Opens a conversation and tells the owner; the creation result holds the one-time
     * credential. `alsoWrite` runs in the same transaction (a door's push notification config).
     */
    async open(opening: Opening, clientAddress: string, alsoWrite?: (conversationId: string) => void) {
      const opened = await batch(() =>
        store.transaction(() => {
          const written = openConversation(store, opening, clientWrite(clientAddress));
          alsoWrite?.(written.conversation.id);
          return written;
        }),
      );
      notifyOwner({
        conversationId: opened.conversation.id,
        seq: 1,
        agentName: opening.metadata.agent_name ?? '',
        message: opening.message,
      });
      return creationResult(opened, config.publicBaseUrl, config.pollIntervalSeconds);
    },

    /** Stores a follow-up (or finds its identical retry) and tells the owner of a new one. */
    async followUp(
      conversation: Conversation,
      input: { message: string; key: string },
      clientAddress: string,
      alsoWrite?: (conversationId: string) => void,
    ) {
      const result = await batch(() =>
        store.transaction(() => {
          const written = followUp(store, conversation.id, input, clientWrite(clientAddress));
          if (!written.duplicate) alsoWrite?.(conversation.id); // a retry writes nothing, as the rule says
          return written;
        }),
      );
      if (!result.duplicate) {
        const agentName = (JSON.parse(conversation.metadata) as { agent_name?: string }).agent_name ?? '';
        notifyOwner({ conversationId: conversation.id, seq: result.message.seq, agentName, message: input.message });
      }
      return { message: result.message, duplicate: result.duplicate };
    },
  };
}

/** The per-address request rate and the poll clock, their idle entries swept once a minute. */
function startRates(config: RunningConfig, now: () => number, log: Log) {
  const rates = {
    requests: createRequestBuckets(config.requestLimitPerMinute),
    polls: createPollClock(config.pollIntervalSeconds),
  };
  const sweep = () => {
    for (const rate of Object.values(rates)) rate.sweep(now());
  };
  const sweeper = setInterval(keepRunning('sweep', sweep, log, now), SWEEP_INTERVAL_MS);
  sweeper.unref();
  return { rates, stopSweeping: () => clearInterval(sweeper) };
}

/**
 * An unexpected error, logged once with the request id its client got: its kind and a short
 * message, never the stack (the code path is in the source) and never a credential.
 */
function unexpectedErrorLog(log: Log) {
  return (requestId: string, err: unknown, extra: Record<string, string> = {}): void => {
    const time = new Date().toISOString();
    log({ time, request_id: requestId, level: 'error', ...extra, error: describeError(err) });
  };
}
