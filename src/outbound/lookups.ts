// Name lookups for outbound requests, given up after a time-out and bounded in number. The system
// resolver runs on libuv's small thread pool (4 threads by default, which nothing else of the server
// uses), and a lookup that never answers keeps its thread after the service gave up on it: so a
// lookup counts against its budget until it really ends, and past it a new one is refused at once
// (OutboundBusy) rather than queued behind stalled ones. A delivery then stays due; a registration
// is answered 503. Budgets are per use: webhooks, pushes and their registrations have three threads,
// agents' key directories the fourth (runtime/verified-agents.ts), so no name a signed request
// chooses can hold the lookups a delivery needs.

import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { OutboundPolicy } from './policy.ts';

/** Lookups under way at once for deliveries and registrations, at most: three of libuv's four threads. */
export const MAX_LOOKUPS_IN_FLIGHT = 3;
// A name whose DNS server never answers must not hold a registration, a delivery or a check for
// long: the lookup is given up after this (it may go on in the background; its answer is dropped).
const LOOKUP_TIMEOUT_MS = 5_000;

const PROCESS_LOOKUPS = { inFlight: 0, max: MAX_LOOKUPS_IN_FLIGHT };

/** Too many lookups are under way: nothing was asked; try again shortly. */
export class OutboundBusy extends Error {
  constructor(max: number) {
    super(`too many name lookups are under way (${max}); nothing was sent`);
    this.name = 'OutboundBusy';
  }
}

/** Every address of `host`, or a rejection: ETIMEOUT after the time-out, OutboundBusy past the bound. */
export async function lookupAddresses(host: string, policy: OutboundPolicy): Promise<readonly LookupAddress[]> {
  const lookups = policy.lookups ?? PROCESS_LOOKUPS;
  if (lookups.inFlight >= lookups.max) throw new OutboundBusy(lookups.max);
  lookups.inFlight++;
  const release = () => void lookups.inFlight--; // when the lookup really ends, not when it is given up
  let lookup: Promise<readonly LookupAddress[]>;
  try {
    lookup = (policy.resolve ?? ((name) => dnsLookup(name, { all: true })))(host);
  } catch (err) {
    release();
    throw err;
  }
  lookup.then(release, release);
  return withTimeout(lookup, policy.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS);
}

/** The lookup's answer, or a rejection with code ETIMEOUT once `ms` have passed. */
async function withTimeout<T>(lookup: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('the lookup timed out'), { code: 'ETIMEOUT' })), ms);
  });
  try {
    return await Promise.race([lookup, late]);
  } finally {
    clearTimeout(timer);
  }
}
