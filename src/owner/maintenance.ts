// The owner's commands on the service itself: the directory, the day's count, backups, and
// purging expired conversations.

import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Config } from '../base/config.ts';
import { purgeExpired } from '../rules/conversations.ts';
import { parseListings, parseListingsText, readListingsFile, type Listing } from '../directory/listings.ts';
import { BackupProblem, checkBackup } from '../store/files.ts';
import type { Store } from '../store/store.ts';
import { utcDay } from '../base/time.ts';
import { shown } from '../base/terminal.ts';
import { listingsCheck } from './check-listings.ts';
import { ownerFile, OwnerError, readStdin, type Command } from './command.ts';
import { counted } from './printing.ts';

const LISTINGS_USAGE =
  'listings import <file or -> | listings export | listings remove <slug> | listings stale [--days N] [--json] | ' +
  'listings check [slug …] [--timeout S] [--json]';
const STALE_AFTER_DAYS = 90; // a quarter: long enough to be worth a re-read, short enough to catch policy changes
const DAY_MS = 86_400_000;

export const maintenanceCommands: Record<string, Command> = {
  listings: {
    usage: LISTINGS_USAGE,
    options: { days: { type: 'string' }, json: { type: 'boolean' }, timeout: { type: 'string' } },
    summary:
      'manage the directory: import validates every listing (- reads stdin), then upserts all or nothing; ' +
      'stale lists those not read against their documentation for --days (90), oldest first, and those ' +
      'whose last check failed; check reads ' +
      "each listing's pages and keyless example live and records the outcome on the listing",
    run: ({ positionals, values, store, config }) => listings(store, config, positionals, values),
  },
  backup: {
    usage: 'backup <file>',
    summary: 'an online, consistent copy of the database, safe while the server runs',
    run: ({ positionals, store, config }) => backupTo(store, config, positionals[0]),
  },
  'purge-expired': {
    usage: 'purge-expired',
    summary: 'delete conversations whose credential expired, with their messages and keys',
    run: ({ store }) => {
      const deleted = purgeExpired(store, Date.now());
      console.log(`Deleted ${counted(deleted, 'expired conversation')} with their messages and keys.`);
    },
  },
};

async function listings(
  store: Store,
  config: Config,
  [action, argument, ...extra]: string[],
  options: Record<string, unknown>,
): Promise<void> {
  if (action === 'check') {
    const slugs = argument === undefined ? [] : [argument, ...extra];
    if (options.days !== undefined) throw new OwnerError(`usage: ${LISTINGS_USAGE}`);
    return listingsCheck(store, config, slugs, { json: options.json === true, timeout: options.timeout });
  }
  if (action === 'stale' && argument === undefined && options.timeout === undefined)
    return stale(store, options.days, options.json === true);
  if (extra.length > 0 || Object.values(options).some((value) => value !== undefined)) action = undefined;
  if (action === 'export' && argument === undefined) {
    return void console.log(
      JSON.stringify(
        store.listings.texts().map((text) => JSON.parse(text)),
        null,
        2,
      ),
    );
  }
  if (action === 'remove' && argument !== undefined) {
    if (!store.listings.remove(argument)) throw new OwnerError(`no listing has the slug "${shown(argument)}"`);
    return void console.log(`Removed ${argument}.`);
  }
  if (action === 'import' && argument !== undefined) return importListings(store, argument);
  throw new OwnerError(`usage: ${LISTINGS_USAGE}`);
}

/** Validates the whole file, then upserts every listing in one transaction; says what changed. */
async function importListings(store: Store, file: string): Promise<void> {
  const read =
    file === '-' ? parseListingsText(await readStdin(), 'standard input') : readListingsFile(ownerFile(file));
  const stored = new Map(store.listings.texts().map((text) => [(JSON.parse(text) as { slug: string }).slug, text]));
  const incoming = read.map((listing) => withStoredCheck(listing, stored.get(listing.slug as string)));
  store.listings.upsert(incoming);
  const added = incoming.filter((listing) => !stored.has(listing.slug as string)).length;
  const same = incoming.filter((listing) => stored.get(listing.slug as string) === JSON.stringify(listing)).length;
  const changed = incoming.length - added - same;
  const listings = counted(incoming.length, 'listing');
  console.log(`Imported ${listings}: ${added} new, ${changed} changed, ${same} unchanged.`);
}

// What `listings check` records: a file exported before a check must not undo it on import.
const CHECK_FIELDS = ['check_status', 'checked_at', 'check_note'] as const;

/**
 * An imported listing with the check fields of the stored one, when there is one, and its
 * read test when the check recorded one later than the file's.
 */
function withStoredCheck(listing: Listing, storedText: string | undefined): Listing {
  if (storedText === undefined) return listing;
  const stored = JSON.parse(storedText) as Listing;
  const merged: Listing = { ...listing };
  const fields: string[] = [...CHECK_FIELDS];
  const tested = String(stored.last_tested_at ?? '') > String(listing.last_tested_at ?? '');
  if (stored.tested_by === 'read_tested' && tested) fields.push('tested_by', 'last_tested_at');
  for (const field of fields) {
    if (stored[field] === undefined) delete merged[field];
    else merged[field] = stored[field];
  }
  return parseListings([merged])[0] as Listing; // the served field order
}

interface StaleRow {
  slug: string;
  name: string;
  verified_at: string;
  docs_url: string;
  check_status?: string;
  checked_at?: string;
  check_note?: string;
}

/**
 * The listings to re-read: those last read against their documentation before the cutoff, oldest
 * first, then those whose last read check failed (an address that moved or is gone, an example
 * that no longer answers as promised), whatever their age.
 */
function stale(store: Store, days: unknown, json: boolean): void {
  if (days !== undefined && !/^\d{1,5}$/.test(String(days))) {
    const given = shown(String(days).slice(0, 20));
    throw new OwnerError(`--days must be a whole number of days from 0 to 99999, got "${given}"`);
  }
  const window = days === undefined ? STALE_AFTER_DAYS : Number(days);
  const now = Date.now();
  const cutoff = utcDay(now - window * DAY_MS);
  const all = store.listings.texts().map((text) => JSON.parse(text) as StaleRow);
  const old = all.filter((listing) => listing.verified_at < cutoff).sort(oldestFirst);
  const failed = all.filter((listing) => listing.check_status === 'failed').sort(oldestFirst);
  if (json) {
    const rows = all.filter((listing) => old.includes(listing) || failed.includes(listing)).sort(oldestFirst);
    return void console.log(JSON.stringify(rows.map((listing) => staleEntry(listing, now)), null, 2));
  }
  if (old.length === 0)
    console.log(
      `All ${all.length} listings were read against their documentation in the last ${window} days ` +
        `(on or after ${cutoff}).`,
    );
  else {
    console.log(
      `${old.length} of ${all.length} listings were last read against their documentation before ${cutoff} ` +
        `(${window} days ago), oldest first:`,
    );
    const width = Math.max(...old.map((listing) => listing.slug.length));
    for (const listing of old) {
      console.log(`${shown(listing.verified_at)}  ${listing.slug.padEnd(width)}  ${shown(listing.docs_url)}`);
    }
  }
  if (failed.length === 0) return;
  console.log(`${counted(failed.length, 'listing')} failed the last read check; re-read and fix what it found:`);
  const width = Math.max(...failed.map((listing) => listing.slug.length));
  for (const listing of failed) {
    const found = shown(listing.check_note ?? '');
    console.log(`${shown(listing.checked_at ?? '')}  ${listing.slug.padEnd(width)}  ${found}`);
  }
}

function oldestFirst(a: StaleRow, b: StaleRow): number {
  return a.verified_at.localeCompare(b.verified_at) || a.slug.localeCompare(b.slug);
}

/** One listing of `stale --json`: when it was read, and what its last check found when that failed. */
function staleEntry(listing: StaleRow, now: number) {
  const { slug, name, verified_at, docs_url } = listing;
  const days_since = Math.floor((now - Date.parse(verified_at)) / DAY_MS);
  if (listing.check_status !== 'failed') return { slug, name, verified_at, days_since, docs_url };
  const { checked_at, check_note } = listing;
  return { slug, name, verified_at, days_since, docs_url, check_status: 'failed', checked_at, check_note };
}

async function backupTo(store: Store, config: Config, name: string | undefined): Promise<void> {
  if (!name) throw new OwnerError('give the file to write the backup to');
  const file = ownerFile(name);
  if (existsSync(file)) throw new OwnerError(`${file} already exists; choose a new file name`);
  // Written beside the target and renamed only once complete and checked: never half a backup.
  const partial = `${file}.partial-${process.pid}`;
  try {
    const check = await store.copyTo(partial);
    if (check !== 'ok') throw new OwnerError(`the copy failed its integrity check: ${check}`);
    checkBackup(partial, 'the copy'); // restore will accept it: exactly a schema the migrations make
    renameSync(partial, file);
  } catch (err) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(partial + suffix, { force: true });
    if (err instanceof OwnerError) throw err;
    if (err instanceof BackupProblem) throw new OwnerError(`nothing was backed up: ${err.message}`);
    throw new OwnerError(`cannot write the backup to ${file}: ${(err as Error).message}`);
  }
  console.log(`Backed up ${config.dbPath} to ${file}: ${store.messageCount()} messages, checked.`);
}
