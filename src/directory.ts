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

/** The sorted listings, answering list and single-listing queries. */
export class Directory {
  readonly #store: Store;
  readonly #listingsMayHaveChanged: () => boolean;
  #entries: Entry[] = [];
  #bySlug = new Map<string, Entry>();
  #answers = new Map<string, Answer>();

  constructor(store: Store) {
    this.#store = store;
    this.#listingsMayHaveChanged = watchOtherCommits(store);
  }

  /** The list body `{ items, total, limit, offset, next_offset }` as JSON bytes. */
  list(query: DirectoryQuery): Answer {
    this.#refresh();
    const key = `${query.kind}\u0000${query.limit}\u0000${query.offset}\u0000${query.category.toLowerCase()}\u0000${query.q.toLowerCase()}`;
    const cached = this.#answers.get(key);
    if (cached) return cached;
    const { entries, total, next_offset } = this.#page(query);
    const items = entries.map((entry) => entry.json).join(',');
    const bytes = Buffer.from(
      `{"items":[${items}],"total":${total},"limit":${query.limit},"offset":${query.offset},"next_offset":${next_offset}}\n`,
    );
    const answer = { bytes, etag: etagOf(bytes) };
    if (this.#answers.size >= MAX_CACHED_ANSWERS) this.#answers = new Map();
    this.#answers.set(key, answer);
    return answer;
  }

  /** One listing as JSON bytes, or undefined. */
  get(slug: string): Answer | undefined {
    this.#refresh();
    return this.#bySlug.get(slug)?.answer;
  }

  /** The same page with the listings themselves, for the web page and the MCP door. */
  page(query: DirectoryQuery): { items: Listing[]; total: number; next_offset: number | null } {
    this.#refresh();
    const { entries, total, next_offset } = this.#page(query);
    return { items: entries.map((entry) => entry.listing), total, next_offset };
  }

  /** One listing as an object, or undefined. */
  listing(slug: string): Listing | undefined {
    this.#refresh();
    return this.#bySlug.get(slug)?.listing;
  }

  /** The categories of a kind (or of all) as the listings spell them, with how many listings each has, sorted. */
  categories(kind: Kind | null): { name: string; count: number }[] {
    this.#refresh();
    const counts = new Map<string, { name: string; count: number }>();
    for (const entry of this.#entries) {
      if (kind !== null && entry.listing.kind !== kind) continue;
      const category = counts.get(entry.category) ?? { name: entry.listing.category as string, count: 0 };
      category.count += 1;
      counts.set(entry.category, category);
    }
    return [...counts.values()].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  }

  #refresh(): void {
    if (!this.#listingsMayHaveChanged()) return;
    this.#answers = new Map();
    this.#entries = this.#store.listingTexts().map(toEntry).sort(byNameThenSlug);
    this.#bySlug = new Map(this.#entries.map((entry) => [entry.listing.slug as string, entry]));
  }

  /** One page of the search; next_offset is null on the last page. */
  #page(query: DirectoryQuery): { entries: Entry[]; total: number; next_offset: number | null } {
    const needle = query.q.toLowerCase();
    const category = query.category.toLowerCase();
    const matches = this.#entries.filter(
      (entry) =>
        (query.kind === null || entry.listing.kind === query.kind) &&
        (category === '' || entry.category === category) &&
        (needle === '' || entry.searchable.some((text) => text.includes(needle))),
    );
    const end = query.offset + query.limit;
    return {
      entries: matches.slice(query.offset, end),
      total: matches.length,
      next_offset: end < matches.length ? end : null,
    };
  }
}

function toEntry(json: string): Entry {
  const listing = JSON.parse(json) as Listing;
  const text = (field: string) => String(listing[field] ?? '').toLowerCase();
  const bytes = Buffer.from(`${json}\n`);
  const searchable = ['name', 'slug', 'description', 'category', 'tags'].map(text);
  return {
    listing,
    name: text('name'),
    category: text('category'),
    searchable,
    json,
    answer: { bytes, etag: etagOf(bytes) },
  };
}

function byNameThenSlug(a: Entry, b: Entry): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return (a.listing.slug as string) < (b.listing.slug as string) ? -1 : 1; // slugs are unique
}
