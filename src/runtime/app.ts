// Everything a handler of any door may use, built once at start-up: configuration, the
// store, the directory snapshot, the clock, the rates, the log, and the two client
// writes, which every door submits the same way: group-committed, then told to the owner.

import { keepRunning } from '../base/background.ts';
import { createStdoutLog, describeError, type Log } from '../base/log.ts';
import { createBatch } from '../store/group-commit.ts';
import { startDeliveries, type DeliveryTiming } from '../outbound/deliveries.ts';
import type { OutboundPolicy } from '../outbound/policy.ts';
import { MAX_LOOKUPS_IN_FLIGHT } from '../outbound/lookups.ts';
import type { RunningConfig } from '../base/config.ts';
import { CredentialCache } from './credential-cache.ts';
import { Directory } from '../directory/snapshot.ts';
import { createMetrics, meteredLog } from './metrics.ts';
import { createClientWrites } from './client-writes.ts';
import { createKeyDirectories } from './verified-agents.ts';
import { ReplyWaits } from './waits.ts';
import { createPollClock, createRequestBuckets } from '../rules/rates.ts';
import { createNotifier } from './notify.ts';
import { quotasOf } from '../rules/quotas.ts';
import type { Store } from '../store/store.ts';

export interface AppOptions {
  /** The clock, in epoch milliseconds; tests inject one to cross the UTC day boundary. */
  readonly now?: () => number;
  /** One JSON object per call; the default writes one line to stdout. */
  readonly log?: Log;
  /** How the outbox is delivered; tests shorten the waits. */
  readonly deliveryTiming?: DeliveryTiming;
  /** How outbound names are looked up; tests give a resolver of their own, and a shorter time-out. */
  readonly lookups?: Pick<OutboundPolicy, 'resolve' | 'lookupTimeoutMs'>;
}

export type App = ReturnType<typeof createApp>;

const SWEEP_INTERVAL_MS = 60_000; // idle rate entries are dropped once a minute

export function createApp(config: RunningConfig, store: Store, options: AppOptions = {}) {
  const now = options.now ?? Date.now;
  const metrics = createMetrics();
  const written = options.log ?? createStdoutLog();
  // Counted only when GET /metrics can be read (METRICS_TOKEN): otherwise nobody would see the counts.
  const log = config.metricsToken === null ? written : meteredLog(metrics, written);
  const quotas = quotasOf(config);
  const { rates, stopSweeping } = startRates(config, now, log);
  const batch = createBatch(store);
  const waits = new ReplyWaits(store, log);
  const outboundPolicy: OutboundPolicy = {
    allowedHosts: config.outboundAllowedHosts,
    ...options.lookups,
    lookups: { inFlight: 0, max: MAX_LOOKUPS_IN_FLIGHT },
  };
  const stopDeliveries = startDeliveries({ store, policy: outboundPolicy, now, log, timing: options.deliveryTiming });
  // No NOTIFY_COMMAND: nobody to tell, and nothing is built for the telling.
  const notifyOwner = config.notifyCommand ? createNotifier(config.notifyCommand, log) : null;

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

    ...createClientWrites({ store, batch, quotas, now, notifyOwner, config }),

    /** Any other write of a door (a webhook's registration), group-committed like the messages. */
    write: <T>(rule: () => T): Promise<T> => batch(rule),

    /** An unexpected error, logged once with the request id its client got. */
    logUnexpected: unexpectedErrorLog(log),

    /** The rules every outbound request passes (outbound/guard.ts). */
    outboundPolicy,

    /** The verified agents' key directories, kept within bounds (verified-agents.ts). */
    keyDirectories: createKeyDirectories(outboundPolicy),

    /** Before the server closes: no more deliveries, and every waiting poll answered now. */
    stop() {
      stopSweeping();
      stopDeliveries();
      waits.answerAll();
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
