// The public directory, served from an in-memory snapshot of the listings table.
// Searching in JS gives the Unicode-aware case folding the contract asks for (SQLite's
// lower() and LIKE fold ASCII only) and makes `%` and `_` in `q` literal for free.
// The snapshot is rebuilt when another connection (the owner script) has committed
// (store/other-commits.ts), so listing changes show on the next request. Answers are kept
// as ready bytes with their ETag per query until then, within a byte budget: the directory
// is read far more than it changes.

import { hash } from 'node:crypto';
import { watchOtherCommits } from '../store/other-commits.ts';
import type { Listing } from './listings.ts';
import type { Store } from '../store/store.ts';
import type { DirectoryQuery, Kind } from '../rules/validate.ts';

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

/** A category as the listings spell it, with how many listings have it. */
export interface CategoryCount {
  readonly name: string;
  readonly count: number;
}

/** One page of a search with the listings themselves; `categories` only when nothing matched. */
export interface Page {
  readonly items: Listing[];
  readonly total: number;
  readonly next_offset: number | null;
  readonly categories?: CategoryCount[];
}

// 8 MiB of cached answers: a full page of 100 shipped listings is about 300 KiB, so the hot set
// (each kind's first pages, the categories) fits many times over, and a miss costs only a filter
// over listings already in memory. A count of entries bounded nothing: 999 distinct full pages
// took the server from 104 to 250 MiB.
export const ANSWER_CACHE_BUDGET_BYTES = 8 * 1024 * 1024;
// What one cached answer costs beside its bytes and its key: the Map entry, the Answer and
// Buffer objects and the ETag string. A generous guess, so that thousands of tiny answers
// (an empty page is a few hundred bytes) are bounded too.
const ANSWER_OVERHEAD_BYTES = 512;

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
  #answers = new Map<string, Answer>(); // in insertion order: the oldest answer goes first
  #cachedBytes = 0;

  constructor(store: Store) {
    this.#store = store;
    this.#listingsMayHaveChanged = watchOtherCommits(store);
  }

  /**
   * The list body `{ items, total, limit, offset, next_offset }` as JSON bytes; an empty
   * answer (total 0) also names the kind's `categories`, so that a client can try one.
   */
  list(query: DirectoryQuery): Answer {
    this.#refresh();
    const terms = searchTerms(query.q);
    const key = JSON.stringify([query.kind, query.limit, query.offset, query.category.toLowerCase(), terms]);
    const cached = this.#answers.get(key);
    if (cached) return cached;
    const { entries, total, next_offset } = this.#page(query, terms);
    const items = entries.map((entry) => entry.json).join(',');
    const paging = `"total":${total},"limit":${query.limit},"offset":${query.offset},"next_offset":${next_offset}`;
    const categories = total === 0 ? `,"categories":${JSON.stringify(this.categories(query.kind))}` : '';
    const bytes = ownBytes(`{"items":[${items}],${paging}${categories}}\n`);
    const answer = { bytes, etag: etagOf(bytes) };
    this.#remember(key, answer);
    return answer;
  }

  /** Bytes the answer cache holds now, by the same count as its budget. */
  get cachedBytes(): number {
    return this.#cachedBytes;
  }

  /** One listing as JSON bytes, or undefined. */
  get(slug: string): Answer | undefined {
    this.#refresh();
    return this.#bySlug.get(slug)?.answer;
  }

  /** The same page with the listings themselves, for the web page and the MCP door. */
  page(query: DirectoryQuery): Page {
    this.#refresh();
    const { entries, total, next_offset } = this.#page(query, searchTerms(query.q));
    const items = entries.map((entry) => entry.listing);
    if (total > 0) return { items, total, next_offset };
    return { items, total, next_offset, categories: this.categories(query.kind) };
  }

  /** One listing as an object, or undefined. */
  listing(slug: string): Listing | undefined {
    this.#refresh();
    return this.#bySlug.get(slug)?.listing;
  }

  /** The categories of a kind (or of all) as the listings spell them, with how many listings each has, sorted. */
  categories(kind: Kind | null): CategoryCount[] {
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
    this.#cachedBytes = 0;
    this.#entries = this.#store.listings.texts().map(toEntry).sort(byNameThenSlug);
    this.#bySlug = new Map(this.#entries.map((entry) => [entry.listing.slug as string, entry]));
  }

  /** Keeps an answer, first letting the oldest ones go until it fits the budget. */
  #remember(key: string, answer: Answer): void {
    const size = costOf(key, answer);
    if (size > ANSWER_CACHE_BUDGET_BYTES) return; // such a page is made afresh each time
    for (const [oldKey, old] of this.#answers) {
      if (this.#cachedBytes + size <= ANSWER_CACHE_BUDGET_BYTES) break;
      this.#answers.delete(oldKey);
      this.#cachedBytes -= costOf(oldKey, old);
    }
    this.#answers.set(key, answer);
    this.#cachedBytes += size;
  }

  /** One page of the search; next_offset is null on the last page. */
  #page(
    query: DirectoryQuery,
    terms: readonly string[],
  ): { entries: Entry[]; total: number; next_offset: number | null } {
    const category = query.category.toLowerCase();
    const matches = this.#entries.filter(
      (entry) =>
        (query.kind === null || entry.listing.kind === query.kind) &&
        (category === '' || entry.category === category) &&
        terms.every((term) => entry.searchable.some((text) => text.includes(term))),
    );
    const end = query.offset + query.limit;
    return {
      entries: matches.slice(query.offset, end),
      total: matches.length,
      next_offset: end < matches.length ? end : null,
    };
  }
}

/**
 * The words of `q`, lower-cased: a listing matches when each one is part of its name, slug,
 * description, category or tags. A q without white space is one word: the plain substring.
 */
function searchTerms(q: string): string[] {
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term !== '');
}

/** What a cached answer counts against the budget. */
function costOf(key: string, answer: Answer): number {
  return answer.bytes.length + 2 * key.length + ANSWER_OVERHEAD_BYTES; // a key may be stored as UTF-16
}

/**
 * The text as UTF-8 in memory of its own. A small Buffer.from() is a slice of a shared 8 KiB
 * pool, which a cached answer would keep alive whole, beyond what the budget counts.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
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
