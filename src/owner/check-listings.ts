// `listings check [slug …] [--json] [--timeout S]`: the live read check (directory/read-check.ts), run by
// the owner or a weekly timer. Each listing's outcome is recorded on the listing itself, so the
// API and the listing's page show it; the owner gets a table, or a report with --json.

import type { Config } from '../base/config.ts';
import { checkListings, type ListingCheck } from '../directory/read-check.ts';
import { parseListings, type Listing } from '../directory/listings.ts';
import type { Store } from '../store/store.ts';
import { shown } from '../base/terminal.ts';
import { utcDay } from '../base/time.ts';
import { SERVICE_VERSION } from '../base/version.ts';
import { OwnerError } from './command.ts';

const DEFAULT_TIMEOUT_SECONDS = 15; // a slow documentation site answers within seconds; a hung one never does
const HOSTS_AT_ONCE = 4; // a few hosts at a time, and one request at a time on each
const MAX_RETRY_AFTER_MS = 30_000; // a short Retry-After is waited out once; a longer one is reported
const NOTE_MAX_CHARS = 2000; // check_note's limit in listings.ts

export async function listingsCheck(
  store: Store,
  config: Config,
  slugs: string[],
  options: { json: boolean; timeout: unknown },
): Promise<void> {
  const timeoutMs = timeoutOf(options.timeout);
  const listings = selected(store, slugs);
  const contact = config.publicBaseUrl ? `${config.publicBaseUrl}/api/v1/contact-info` : 'no public address set';
  const checks = await checkListings(listings, {
    policy: { allowedHosts: config.outboundAllowedHosts },
    userAgent: `agent-contact-service/${SERVICE_VERSION} (directory read check; owner: ${contact})`,
    timeoutMs,
    hostsAtOnce: HOSTS_AT_ONCE,
    maxRetryAfterMs: MAX_RETRY_AFTER_MS,
  });
  refuseIfOffline(checks);
  const today = utcDay(Date.now());
  const recorded = checks.filter((check) => store.listings.change(check.slug, (l) => withCheck(l, check, today)));
  if (options.json)
    return void console.log(
      JSON.stringify(
        recorded.map((check) => report(check, today)),
        null,
        2,
      ),
    );
  printTable(recorded, today);
}

/**
 * When not one read got an HTTP answer from two or more hosts, this machine is taken to be
 * offline (its DNS or its uplink down), not every listing broken: nothing is recorded, so that
 * one bad run of the weekly timer does not publish every listing as failed. One host that does
 * not answer is a listing's failure, and recorded.
 */
function refuseIfOffline(checks: readonly ListingCheck[]): void {
  const reads = checks.flatMap((check) => check.reads);
  const hosts = new Set(reads.map((read) => URL.parse(read.target)?.host));
  if (hosts.size < 2 || reads.some((read) => read.answered)) return;
  const first = shown(`${reads[0]?.target}: ${reads[0]?.outcome}`);
  throw new OwnerError(`no host answered, so nothing was recorded; is this machine offline? (${first})`);
}

function timeoutOf(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS * 1000;
  if (!/^\d{1,3}$/.test(String(value)) || Number(value) < 1 || Number(value) > 120)
    throw new OwnerError(`--timeout must be a whole number of seconds from 1 to 120, got "${String(value)}"`);
  return Number(value) * 1000;
}

/** The listings named (all when none is), in slug order; an unknown slug is a mistake. */
function selected(store: Store, slugs: string[]): Listing[] {
  const all = store.listings.texts().map((text) => JSON.parse(text) as Listing);
  if (slugs.length === 0) return all;
  const unknown = slugs.filter((slug) => !all.some((listing) => listing.slug === slug));
  if (unknown.length > 0) throw new OwnerError(`no listing has the slug ${unknown.map((s) => `"${s}"`).join(', ')}`);
  return all.filter((listing) => slugs.includes(listing.slug as string));
}

/**
 * The listing with the check's outcome: check_status and checked_at always; check_note only
 * after a failure; tested_by and last_tested_at after the example answered as promised (a
 * failed example leaves the last passing test as it was).
 */
function withCheck(listing: Record<string, unknown>, check: ListingCheck, today: string): Listing {
  const { check_note: _previous, ...rest } = listing;
  const changed: Record<string, unknown> = { ...rest, check_status: check.passed ? 'passed' : 'failed' };
  changed.checked_at = today;
  if (!check.passed) changed.check_note = failures(check).slice(0, NOTE_MAX_CHARS);
  if (check.exampleRead === true) Object.assign(changed, { tested_by: 'read_tested', last_tested_at: today });
  return parseListings([changed])[0] as Listing; // validated, and its fields in the served order
}

function failures(check: ListingCheck): string {
  return check.reads
    .filter((read) => !read.ok)
    .map((read) => `${read.what}: ${read.outcome}`)
    .join('; ');
}

function report(check: ListingCheck, today: string) {
  return {
    slug: check.slug,
    check_status: check.passed ? 'passed' : 'failed',
    checked_at: today,
    example_read: check.exampleRead,
    reads: check.reads.map(({ what, target, ok, outcome }) => ({ what, url: target, ok, outcome })),
  };
}

function printTable(checks: readonly ListingCheck[], today: string): void {
  const failed = checks.filter((check) => !check.passed).length;
  const listings = checks.length === 1 ? '1 listing' : `${checks.length} listings`;
  console.log(`Checked ${listings} on ${today}: ${checks.length - failed} passed, ${failed} failed.`);
  if (checks.length === 0) return;
  const width = Math.max(4, ...checks.map((check) => check.slug.length));
  console.log(`${'slug'.padEnd(width)}  result  what was read`);
  for (const check of checks) {
    const shownReads = check.passed ? check.reads : check.reads.filter((read) => !read.ok);
    const summary = shownReads.map((read) => `${read.what}: ${read.outcome}`).join(' · ');
    console.log(`${check.slug.padEnd(width)}  ${(check.passed ? 'passed' : 'FAILED').padEnd(6)}  ${shown(summary)}`);
  }
}
