// The day's limits on what is stored, decided in one place: the shared daily maximum, each
// sender's fair share of it, the reserve kept for the owner's replies, and the openings per
// address per hour. The rules in conversations.ts call these functions inside the write
// transaction of the message they count, after validation, idempotency and state, so no
// number of requests in flight can pass a limit, and the counts survive a restart.

import { createHmac } from 'node:crypto';
import type { Config } from '../base/config.ts';
import { refuse } from '../refusals/refusal.ts';
import { senderOf } from './senders.ts';
import type { Store } from '../store/store.ts';
import { secondsUntilNextUtcDay, utcDay } from '../base/time.ts';

const HOUR_MS = 3_600_000;

/** The limits as enforced: the configured ones, made consistent with the maximum. */
export interface Quotas {
  /** messages per UTC day, all senders and the owner together; 0 = unlimited (then nothing below applies) */
  readonly dailyMaximum: number;
  /** client messages one conversation may store per day; 0 = no share */
  readonly conversationShare: number;
  /** client messages (openings and follow-ups) one address may store per day; 0 = no share */
  readonly addressShare: number;
  /** messages of the maximum that only the owner's replies may use */
  readonly ownerReserve: number;
  /** conversations one address may open per sliding hour; 0 = unlimited */
  readonly openingsPerHour: number;
}

/**
 * The quotas a configuration sets. A share at or above what clients may store never binds,
 * and the reserve is at most a tenth of the maximum (none under 10): a small maximum then
 * behaves exactly as the shared maximum alone.
 */
export function quotasOf(config: Config): Quotas {
  const maximum = config.dailyMessageLimit;
  const ownerReserve = maximum < 10 ? 0 : Math.min(config.dailyOwnerReserve, Math.floor(maximum / 10));
  const binding = (share: number) => (maximum === 0 || share >= maximum - ownerReserve ? 0 : share);
  return Object.freeze({
    dailyMaximum: maximum,
    conversationShare: binding(config.dailyConversationShare),
    addressShare: binding(config.dailyAddressShare),
    ownerReserve,
    openingsPerHour: config.createLimitPerHour,
  });
}

/** A client address as it is counted: its sender (an IPv6 /64), keyed and hashed, never stored as such. */
export function addressKey(secret: string, address: string): string {
  return createHmac('sha256', secret).update(senderOf(address)).digest('hex');
}

/** Starts a new day's counts: the first message of a UTC day drops every earlier day's. */
function openDay(store: Store, day: string): void {
  if (store.quotaCounts.count(day, 'all') === 0) store.quotaCounts.dropBefore(day);
}

/**
 * Judges and counts one client message: the shared maximum less the owner's reserve, then
 * the conversation's share, then the address's share. Throws the refusal of the first one met.
 */
export function countClientMessage(
  store: Store,
  quotas: Quotas,
  at: number,
  sender: { conversationId: string; address: string },
): void {
  const day = utcDay(at);
  openDay(store, day);
  const conversation = `conversation:${sender.conversationId}` as const;
  const address = `address:${sender.address}` as const;
  if (quotas.dailyMaximum > 0) {
    const wait = secondsUntilNextUtcDay(at);
    const clientRoom = quotas.dailyMaximum - quotas.ownerReserve;
    if (store.quotaCounts.count(day, 'all') >= clientRoom) {
      throw refuse('daily_maximum', quotas.dailyMaximum, quotas.ownerReserve, wait);
    }
    if (quotas.conversationShare > 0 && store.quotaCounts.count(day, conversation) >= quotas.conversationShare) {
      throw refuse('conversation_share', quotas.conversationShare, wait);
    }
    if (quotas.addressShare > 0 && store.quotaCounts.count(day, address) >= quotas.addressShare) {
      throw refuse('address_share', quotas.addressShare, wait);
    }
  }
  for (const counted of ['all', conversation, address] as const) store.quotaCounts.add(day, counted);
}

/** Judges and records one opening against the address's openings of the last hour. */
export function countOpening(store: Store, quotas: Quotas, at: number, address: string): void {
  if (quotas.openingsPerHour === 0) return;
  const { count, oldest } = store.quotaCounts.openings(address, at - HOUR_MS);
  if (count >= quotas.openingsPerHour) {
    throw refuse('too_many_openings', quotas.openingsPerHour, ((oldest as number) + HOUR_MS - at) / 1000);
  }
  store.quotaCounts.dropOpeningsBefore(at - HOUR_MS);
  store.quotaCounts.recordOpening(address, at);
}

/** Judges and counts one owner reply: the owner may use the whole maximum; `force` passes it. */
export function countOwnerReply(store: Store, dailyMaximum: number, at: number, force: boolean): void {
  const day = utcDay(at);
  openDay(store, day);
  if (!force && dailyMaximum > 0 && store.quotaCounts.count(day, 'all') >= dailyMaximum) {
    throw refuse('owner_daily_maximum', dailyMaximum);
  }
  store.quotaCounts.add(day, 'all');
  store.quotaCounts.add(day, 'owner');
}

/** How much of the day each limit has used, for the owner's `stats`. */
export function usageOf(store: Store, at: number) {
  const day = utcDay(at);
  const conversation = store.quotaCounts.busiest(day, 'conversation');
  return {
    day,
    messages: store.quotaCounts.count(day, 'all'),
    ownerReplies: store.quotaCounts.count(day, 'owner'),
    busiestConversation: {
      id: conversation?.sender.replace(/^conversation:/, '') ?? null,
      count: conversation?.count ?? 0,
    },
    busiestAddress: { count: store.quotaCounts.busiest(day, 'address')?.count ?? 0 },
  };
}
