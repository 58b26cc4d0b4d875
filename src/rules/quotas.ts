// The day's limits on what is stored, decided in one place: the shared daily maximum, each
// sender's fair share of it (a conversation's; an address's, within the unverified pool, for the
// unsigned; a site's, within the verified pool, for verified strangers; the owner's contacts count
// against neither), the reserve kept for the owner's replies, and the openings per address per hour.
// The rules in conversations.ts call these functions inside the write transaction of the message they
// count, after validation, idempotency and state, so no number of requests in flight can pass a
// limit, and the counts survive a restart.

import { createHmac } from 'node:crypto';
import type { Config } from '../base/config.ts';
import { siteOf } from '../base/sites.ts';
import { secondsUntilNextUtcDay, utcDay } from '../base/time.ts';
import { refuse } from '../refusals/refusal.ts';
import type { CountKey, SenderKey } from '../store/senders.ts';
import type { Store } from '../store/store.ts';
import { networkOf } from './rates.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The limits as enforced: the configured ones, made consistent with the maximum. */
export interface Quotas {
  /** messages per UTC day, all senders and the owner together; 0 = unlimited (then nothing below applies) */
  readonly dailyMaximum: number;
  /** client messages one conversation may store per day; 0 = no share */
  readonly conversationShare: number;
  /** unverified client messages (openings and follow-ups) one address may store per day; 0 = no share */
  readonly addressShare: number;
  /** client messages the verified strangers of one site (registrable domain) may store per day; 0 = no share */
  readonly siteShare: number;
  /** unverified client messages, all senders together, per day; 0 = no pool */
  readonly unverifiedPool: number;
  /** client messages of verified strangers (signed, not contacts), all together, per day; 0 = no pool */
  readonly verifiedPool: number;
  /** messages of the maximum that only the owner's replies may use */
  readonly ownerReserve: number;
  /** conversations one address may open per sliding hour; 0 = unlimited */
  readonly openingsPerHour: number;
}

/**
 * The quotas a configuration sets. A share at or above what clients may store never binds,
 * and the reserve is at most a tenth of the maximum (none under 10). The two pools are by default
 * a third each of what clients may store, from a maximum of 10 up (a small maximum then behaves
 * exactly as the shared maximum alone): the third left is room only contacts can use. A site's share
 * is by default as large as the verified pool: an operator often acts for many people.
 */
export function quotasOf(config: Config): Quotas {
  const maximum = config.dailyMessageLimit;
  const ownerReserve = maximum < 10 ? 0 : Math.min(config.dailyOwnerReserve, Math.floor(maximum / 10));
  const clientRoom = maximum - ownerReserve;
  const binding = (share: number) => (maximum === 0 || share >= clientRoom ? 0 : share);
  const third = maximum < 10 ? 0 : Math.floor(clientRoom / 3);
  const verifiedPool = config.dailyVerifiedShare ?? third;
  return Object.freeze({
    dailyMaximum: maximum,
    conversationShare: binding(config.dailyConversationShare),
    addressShare: binding(config.dailyAddressShare),
    siteShare: binding(config.dailySiteShare ?? verifiedPool),
    unverifiedPool: binding(config.dailyUnverifiedShare ?? third),
    verifiedPool: binding(verifiedPool),
    ownerReserve,
    openingsPerHour: config.createLimitPerHour,
  });
}

/** A client address as it is counted: its sender (an IPv6 /64), keyed and hashed, never stored as such. */
export function addressKey(secret: string, address: string): string {
  return createHmac('sha256', secret).update(networkOf(address)).digest('hex');
}

/**
 * What a client message is counted against: a verified contact's identity (no share), a verified
 * stranger's site, or, unsigned, its keyed address.
 */
export function countedAs(store: Store, agent: string | null, addressHash: string): SenderKey {
  if (agent === null) return `address:${addressHash}`;
  const site = siteOf(agent);
  return store.contacts.isContact(agent, site) ? `contact:${agent}` : `site:${site}`;
}

/** The pool a sender's messages fill together with others of its kind, if any. */
function poolOf(sender: SenderKey | null): 'unverified' | 'verified' | null {
  if (sender === null || sender.startsWith('address:')) return 'unverified'; // null: stored before senders were
  return sender.startsWith('site:') ? 'verified' : null;
}

/** Starts a new day's counts: the first message of a UTC day drops every earlier day's. */
function openDay(store: Store, day: string): void {
  if (store.quotaCounts.count(day, 'all') === 0) store.quotaCounts.dropBefore(day);
}

/**
 * Judges and counts one client message: the shared maximum less the owner's reserve, then the
 * conversation's share, then its sender's: an address's share and the unverified pool, or a site's
 * share and the verified pool; a contact's counts against neither. Throws the refusal of the first met.
 */
export function countClientMessage(
  store: Store,
  quotas: Quotas,
  at: number,
  sender: { conversationId: string; key: SenderKey },
): void {
  const day = utcDay(at);
  openDay(store, day);
  const counts = store.quotaCounts;
  const conversation = `conversation:${sender.conversationId}` as const;
  const pool = poolOf(sender.key);
  if (quotas.dailyMaximum > 0) {
    const wait = secondsUntilNextUtcDay(at);
    const over = (share: number, key: CountKey) => share > 0 && counts.count(day, key) >= share;
    if (counts.count(day, 'all') >= quotas.dailyMaximum - quotas.ownerReserve) {
      throw refuse('daily_maximum', quotas.dailyMaximum, quotas.ownerReserve, wait);
    }
    if (over(quotas.conversationShare, conversation)) {
      throw refuse('conversation_share', quotas.conversationShare, wait);
    }
    if (pool === 'unverified') {
      if (over(quotas.addressShare, sender.key)) throw refuse('address_share', quotas.addressShare, wait);
      if (over(quotas.unverifiedPool, 'unverified')) throw refuse('unverified_pool', quotas.unverifiedPool, wait);
    }
    if (pool === 'verified') {
      const site = sender.key.slice('site:'.length);
      if (over(quotas.siteShare, sender.key)) throw refuse('agent_share', quotas.siteShare, site, wait);
      if (over(quotas.verifiedPool, 'verified')) throw refuse('verified_pool', quotas.verifiedPool, wait);
    }
  }
  for (const counted of ['all', conversation, sender.key] as const) counts.add(day, counted);
  if (pool !== null) counts.add(day, pool);
}

/**
 * Gives back to the day (or, `sign` 1, takes again) a conversation's client messages of the UTC day
 * of `at`: from the maximum, its share, and what each message was counted against (an address's share
 * and the unverified pool, or a site's share and the verified pool). A blocked conversation's messages
 * no longer count.
 */
export function giveBackDay(store: Store, conversationId: string, at: number, sign: 1 | -1): void {
  const day = utcDay(at);
  const from = `${day}T00:00:00.000Z`;
  const to = new Date(Date.parse(from) + DAY_MS).toISOString();
  const counts = store.quotaCounts;
  for (const { sender, count } of counts.clientMessagesBetween(conversationId, from, to)) {
    const n = sign * count;
    counts.add(day, 'all', n);
    counts.add(day, `conversation:${conversationId}`, n);
    if (sender !== null) counts.add(day, sender, n);
    const pool = poolOf(sender);
    if (pool !== null) counts.add(day, pool, n);
  }
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
  const counts = store.quotaCounts;
  const conversation = counts.busiest(day, 'conversation');
  const site = counts.busiest(day, 'site');
  return {
    day,
    messages: counts.count(day, 'all'),
    ownerReplies: counts.count(day, 'owner'),
    unverified: counts.count(day, 'unverified'),
    verified: counts.count(day, 'verified'),
    busiestConversation: {
      id: conversation?.sender.replace(/^conversation:/, '') ?? null,
      count: conversation?.count ?? 0,
    },
    busiestAddress: { count: counts.busiest(day, 'address')?.count ?? 0 },
    busiestSite: { site: site?.sender.replace(/^site:/, '') ?? null, count: site?.count ?? 0 },
  };
}
