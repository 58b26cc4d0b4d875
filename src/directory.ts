// The public directory, served from an in-memory snapshot of the listings table.
// Searching in JS gives the Unicode-aware case folding the contract asks for (SQLite's
// lower() and LIKE fold ASCII only) and makes `%` and `_` in `q` literal for free.
// The snapshot is rebuilt when another connection (the owner script) has committed
// (commits.ts), so listing changes show on the next request. Answers are kept
// as ready bytes with their ETag per query until then: the directory is read far more
// than it changes.

import { hash } from 'node:crypto';
import { watchOtherCommits } from './commits.ts';
import type { Listing } from './listings.ts';
import type { Store } from './store.ts';
import type { DirectoryQuery, Kind } from './validate.ts';

/** Bytes ready to send, with the ETag that names them. */
export interface Answer {
  readonly bytes: Buffer;
  readonly etag: string;
}

interface Entry {
  readonly listing: Listing;
  readonly name: string; // lower-cased, for sorting
  readonly category: string; // lower-cased
  readonly searchable: readonly string[]; // lower-cased name, slug, description, category and tags
  readonly json: string; // the listing exactly as served, inside list answers
  readonly answer: Answer; // the single-listing answer
}

const MAX_CACHED_ANSWERS = 1000; // distinct queries kept; past this the cache starts over

/** A strong ETag for some bytes. */
export function etagOf(bytes: Buffer): string {
  return `"${hash('sha1', bytes, 'base64url')}"`;
}

/** Keeps the sorted listings and answers list and single-listing queries. */
export function createDirectory(store: Store) {
  let entries: Entry[] = [];
  let bySlug = new Map<string, Entry>();
  let answers = new Map<string, Answer>();
  const listingsMayHaveChanged = watchOtherCommits(store);

  function refresh(): void {
    if (!listingsMayHaveChanged()) return;
    answers = new Map();
    entries = store
      .listingTexts()
      .map((json) => toEntry(json))
      .sort(byNameThenSlug);
    bySlug = new Map(entries.map((entry) => [entry.listing.slug as string, entry]));
  }

  function matching(query: Omit<DirectoryQuery, 'limit' | 'offset'>): Entry[] {
    const needle = query.q.toLowerCase();
    const category = query.category.toLowerCase();
    return entries.filter(
      (entry) =>
        (query.kind === null || entry.listing.kind === query.kind) &&
        (category === '' || entry.category === category) &&
        (needle === '' || entry.searchable.some((text) => text.includes(needle))),
    );
  }

  return {
    /** The list body `{ items, total, limit, offset, next_offset }` as JSON bytes. */
    list(query: DirectoryQuery): Answer {
      refresh();
      const key = `${query.kind}\u0000${query.limit}\u0000${query.offset}\u0000${query.category.toLowerCase()}\u0000${query.q.toLowerCase()}`;
      const cached = answers.get(key);
      if (cached) return cached;
      const matches = matching(query);
      const page = matches.slice(query.offset, query.offset + query.limit);
      const nextOffset = query.offset + query.limit < matches.length ? query.offset + query.limit : null;
      const bytes = Buffer.from(
        `{"items":[${page.map((entry) => entry.json).join(',')}],"total":${matches.length},` +
          `"limit":${query.limit},"offset":${query.offset},"next_offset":${nextOffset}}\n`,
      );
      const answer = { bytes, etag: etagOf(bytes) };
      if (answers.size >= MAX_CACHED_ANSWERS) answers = new Map();
      answers.set(key, answer);
      return answer;
    },

    /** One listing as JSON bytes, or undefined. */
    get(slug: string): Answer | undefined {
      refresh();
      return bySlug.get(slug)?.answer;
    },

    /** The same search for the web page: the listings themselves and the total. */
    page(query: DirectoryQuery): { items: Listing[]; total: number } {
      refresh();
      const matches = matching(query);
      return { items: matches.slice(query.offset, query.offset + query.limit).map((entry) => entry.listing), total: matches.length };
    },

    /** One listing as an object, or undefined. */
    listing(slug: string): Listing | undefined {
      refresh();
      return bySlug.get(slug)?.listing;
    },

    /** The distinct categories of a kind (or of all), sorted, as the listings spell them. */
    categories(kind: Kind | null): string[] {
      refresh();
      const names = new Map<string, string>();
      for (const entry of entries) if (kind === null || entry.listing.kind === kind) names.set(entry.category, entry.listing.category as string);
      return [...names.values()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    },
  };
}

function toEntry(json: string): Entry {
  const listing = JSON.parse(json) as Listing;
  const text = (field: string) => String(listing[field] ?? '').toLowerCase();
  const bytes = Buffer.from(`${json}\n`);
  return {
    listing,
    name: text('name'),
    category: text('category'),
    searchable: ['name', 'slug', 'description', 'category', 'tags'].map(text),
    json,
    answer: { bytes, etag: etagOf(bytes) },
  };
}

function byNameThenSlug(a: Entry, b: Entry): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  const slugA = a.listing.slug as string;
  const slugB = b.listing.slug as string;
  return slugA < slugB ? -1 : slugA > slugB ? 1 : 0;
}
