// Delivering the outbox: the server POSTs each event to where its agent asked (a signed
// webhook, or an A2A push notification), at least once. An event is marked delivered only
// after a 2xx; until then it is tried again on a growing back-off, and given up (and
// recorded) a day after it was written. Events written while the server was down, or by
// the owner script, are found by the next tick; a server killed mid-delivery sends again.
// Every request passes the outbound guard (guard.ts).

import { createHmac } from 'node:crypto';
import { keepRunning } from '../base/background.ts';
import { storedObject } from '../base/stored-json.ts';
import type { Log } from '../base/log.ts';
import type { ThinEvent } from '../rules/push.ts';
import { OutboundRefusal, sendOutbound, type OutboundPolicy } from './guard.ts';
import { OutboundBusy } from './lookups.ts';
import type { Store } from '../store/store.ts';
import type { DueEvent, PushTarget } from '../store/outbox.ts';
import { taskState } from './task-state.ts';
import { isoTime } from '../base/time.ts';

const HOUR_MS = 3_600_000;

/** How deliveries are paced; tests shorten them. */
export const DELIVERY_TIMING = Object.freeze({
  // How often the outbox is read: an event the owner script wrote goes out within a second.
  tickMs: 1000,
  // Waits after each failed attempt, after Svix's schedule: quick retries for a blip, then
  // hours for a receiver that is down; the last wait repeats until the event is a day old.
  retryAfterMs: [5_000, 300_000, 1_800_000, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS],
  giveUpAfterMs: 24 * HOUR_MS, // a day: an agent that is away longer reads its messages when it returns
});
export interface DeliveryTiming {
  readonly tickMs: number;
  readonly retryAfterMs: readonly number[];
  readonly giveUpAfterMs: number;
}

const MAX_AT_ONCE = 4; // deliveries in flight: a small machine, and receivers that may be slow
const TIMEOUT_MS = 10_000; // a receiver answers at once and does its work later
const KEEP_FINISHED_MS = 7 * 24 * HOUR_MS; // delivered and given-up events are kept a week, for the owner's `show`
const USER_AGENT = 'agent-contact-service (webhook delivery)';

interface Deps {
  readonly store: Store;
  readonly policy: OutboundPolicy;
  readonly now: () => number;
  readonly log: Log;
  readonly timing?: DeliveryTiming;
}

/** Starts the delivery loop; returns its stop function. */
export function startDeliveries(deps: Deps): () => void {
  const loop = new DeliveryLoop(deps);
  // A tick that fails (a database locked past the busy timeout) is logged; what was due stays due.
  const tick = keepRunning('deliveries', () => loop.tick(), deps.log, deps.now);
  const timer = setInterval(tick, loop.timing.tickMs);
  timer.unref();
  setImmediate(tick); // what was due while the server was down goes out now
  return () => {
    loop.stop();
    clearInterval(timer);
  };
}

/** Each tick: the due events, at most MAX_AT_ONCE in flight and one per target, in order. */
class DeliveryLoop {
  readonly timing: DeliveryTiming;
  readonly #deps: Deps;
  readonly #inFlight = new Set<string>(); // target ids: one delivery per target at a time, in order
  #lastCleanup = 0;
  #stopped = false;

  constructor(deps: Deps) {
    this.#deps = deps;
    this.timing = deps.timing ?? DELIVERY_TIMING;
  }

  stop(): void {
    this.#stopped = true;
  }

  tick(): void {
    const { store, now } = this.#deps;
    if (this.#stopped) return;
    if (now() - this.#lastCleanup > HOUR_MS) {
      this.#lastCleanup = now();
      store.transaction(() => store.outbox.dropFinishedBefore(now() - KEEP_FINISHED_MS));
    }
    if (this.#inFlight.size >= MAX_AT_ONCE) return;
    for (const due of store.outbox.due(now(), MAX_AT_ONCE * 4)) {
      if (this.#inFlight.size >= MAX_AT_ONCE) break;
      if (this.#inFlight.has(due.target.id)) continue;
      this.#inFlight.add(due.target.id);
      this.#deliver(due)
        .catch((err: unknown) => this.#notRecorded(due, err))
        .finally(() => this.#inFlight.delete(due.target.id));
    }
  }

  async #deliver(due: DueEvent): Promise<void> {
    const event = storedObject(due.event) as ThinEvent | undefined;
    if (event === undefined) return this.#giveUpDamaged(due);
    let failure: string;
    try {
      const { url, body, headers } = requestFor(due, event, this.#deps.now());
      const request = { method: 'POST', headers, body, timeoutMs: TIMEOUT_MS } as const;
      const answer = await sendOutbound(new URL(url), request, this.#deps.policy);
      if (answer.status >= 200 && answer.status < 300) return this.#settle(due, null, `delivered (${answer.status})`);
      failure = `the receiver answered ${answer.status}`;
    } catch (err) {
      if (err instanceof OutboundBusy) return; // nothing was sent: not an attempt, and still due
      failure = err instanceof OutboundRefusal ? `refused: ${err.message}` : (err as Error).message;
    }
    this.#settle(due, failure, failure);
  }

  /** Records the attempt: delivered, retried later, or given up a day after the event was written. */
  #settle(due: DueEvent, failure: string | null, outcome: string): void {
    if (this.#stopped) return; // the database is closing; the event stays due
    const { store, now, log } = this.#deps;
    const at = now();
    const retryIn = this.timing.retryAfterMs[Math.min(due.attempts, this.timing.retryAfterMs.length - 1)] as number;
    const givenUp = failure !== null && at + retryIn - due.created_at > this.timing.giveUpAfterMs;
    store.transaction(() => {
      store.outbox.recordAttempt(due.target.id, isoTime(at), outcome, failure === null);
      if (failure === null) store.outbox.finish(due.id, at, 'delivered');
      else if (givenUp) store.outbox.finish(due.id, at, `given up after ${due.attempts + 1} attempts: ${failure}`);
      else store.outbox.scheduleRetry(due.id, at + retryIn);
    });
    const result = failure === null ? 'delivered' : givenUp ? 'given up' : 'will retry';
    const host = URL.parse(due.target.url)?.host ?? '';
    const level = failure === null ? 'info' : 'warn';
    log({ time: isoTime(at), level, delivery: result, event_id: due.id, kind: due.target.kind, host, outcome });
  }

  /**
   * An event damaged in the database (a crafted restore) is given up at once: no attempt could deliver
   * it, and none is counted against its target.
   */
  #giveUpDamaged(due: DueEvent): void {
    if (this.#stopped) return;
    const { store, now, log } = this.#deps;
    const outcome = 'given up: the event is damaged in the database (not a JSON object)';
    store.transaction(() => store.outbox.finish(due.id, now(), outcome));
    const { kind } = due.target;
    log({ time: isoTime(now()), level: 'warn', delivery: 'given up', event_id: due.id, kind, outcome });
  }

  /** Only a database fault lands here (a request's own failures are settled); the event stays due. */
  #notRecorded(due: DueEvent, err: unknown): void {
    if (this.#stopped) return;
    const { now, log } = this.#deps;
    log({ time: isoTime(now()), level: 'error', delivery: 'not recorded', event_id: due.id, error: String(err) });
  }
}

type OutboundRequest = { url: string; body: string; headers: Record<string, string> };

/** The request for one event: a signed webhook, or an A2A push notification. */
function requestFor(due: DueEvent, event: ThinEvent, at: number): OutboundRequest {
  const { target } = due;
  if (target.kind === 'webhook') {
    const body = due.event;
    return { url: target.url, body, headers: webhookHeaders(target, due.id, at, body) };
  }
  const body = JSON.stringify({ statusUpdate: a2aStatusUpdate(event) });
  const headers: Record<string, string> = { 'content-type': 'application/a2a+json', 'user-agent': USER_AGENT };
  if (target.auth_scheme) headers.authorization = `${target.auth_scheme} ${target.auth_credentials ?? ''}`.trim();
  if (target.token) headers['x-a2a-notification-token'] = target.token;
  return { url: target.url, body, headers };
}

/** Standard Webhooks: webhook-id, webhook-timestamp and `v1,` + the HMAC-SHA256 of "id.timestamp.body". */
export function webhookHeaders(target: Pick<PushTarget, 'secret'>, id: string, at: number, body: string) {
  const timestamp = String(Math.floor(at / 1000));
  const key = Buffer.from((target.secret ?? '').replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}

/** The task's state as A2A names it, for a push: the state only, never the text. */
function a2aStatusUpdate(event: ThinEvent) {
  const { conversation_id: id, status, closed_by: closedBy } = event.data;
  const state = taskState(status, closedBy ?? null);
  return { taskId: id, contextId: id, status: { state, timestamp: event.timestamp } };
}
