// The public directory, served from an in-memory snapshot of the listings table.
// Searching in JS gives the Unicode-aware case folding the contract asks for (SQLite's
// lower() and LIKE fold ASCII only) and makes `%` and `_` in `q` literal for free.
// The snapshot is rebuilt when PRAGMA data_version says another connection (the owner
// script) committed, so listing changes show on the very next request. Answers are kept
// as ready bytes per query until then: the directory is read far more than it changes.

import type { Store } from './db.ts';

export type Kind = 'community' | 'tool';

interface Entry {
  readonly slug: string;
  readonly kind: string;
  readonly name: string; // lower-cased, for sorting
  readonly category: string; // lower-cased
  readonly searchable: readonly string[]; // lower-cased name, slug, description, category and tags
  readonly json: string; // the listing exactly as served, inside list answers
  readonly bytes: Buffer; // the same, as the single-listing answer
}

const MAX_CACHED_ANSWERS = 1000; // distinct queries kept; past this the cache starts over

export interface DirectoryQuery {
  readonly kind: Kind | null;
  readonly q: string;
  readonly category: string;
  readonly limit: number;
  readonly offset: number;
}

/** Keeps the sorted listings and answers list and single-listing queries with JSON text. */
export function createDirectory(store: Store) {
  let entries: Entry[] = [];
  let bySlug = new Map<string, Entry>();
  let loadedVersion = -1;
  let answers = new Map<string, Buffer>();
  let checkedThisTurn = false;

  // Asked once per event-loop turn: requests in the same turn are concurrent with any
  // owner commit anyway, and the next turn sees it.
  function refresh(): void {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(() => (checkedThisTurn = false));
    const version = store.dataVersion();
    if (version === loadedVersion) return;
    answers = new Map();
    entries = store
      .listingTexts()
      .map((json) => toEntry(json))
      .sort(byNameThenSlug);
    bySlug = new Map(entries.map((entry) => [entry.slug, entry]));
    loadedVersion = version;
  }

  return {
    /** The list body `{ items, total, limit, offset, next_offset }` as JSON bytes. */
    list(query: DirectoryQuery): Buffer {
      refresh();
      const needle = query.q.toLowerCase();
      const category = query.category.toLowerCase();
      const key = `${query.kind}\u0000${query.limit}\u0000${query.offset}\u0000${category}\u0000${needle}`;
      const cached = answers.get(key);
      if (cached) return cached;
      const matches = entries.filter(
        (entry) =>
          (query.kind === null || entry.kind === query.kind) &&
          (category === '' || entry.category === category) &&
          (needle === '' || entry.searchable.some((text) => text.includes(needle))),
      );
      const page = matches.slice(query.offset, query.offset + query.limit);
      const nextOffset = query.offset + query.limit < matches.length ? query.offset + query.limit : null;
      const answer = Buffer.from(
        `{"items":[${page.map((entry) => entry.json).join(',')}],"total":${matches.length},` +
          `"limit":${query.limit},"offset":${query.offset},"next_offset":${nextOffset}}`,
      );
      if (answers.size >= MAX_CACHED_ANSWERS) answers = new Map();
      answers.set(key, answer);
      return answer;
    },

    /** One listing as JSON bytes, or undefined. */
    get(slug: string): Buffer | undefined {
      refresh();
      return bySlug.get(slug)?.bytes;
    },
  };
}

function toEntry(json: string): Entry {
  const listing = JSON.parse(json) as Record<string, string>;
  const searchable = [listing.name, listing.slug, listing.description, listing.category, listing.tags];
  return {
    slug: listing.slug as string,
    kind: listing.kind as string,
    name: (listing.name as string).toLowerCase(),
    category: (listing.category as string).toLowerCase(),
    searchable: searchable.map((text) => (text ?? '').toLowerCase()),
    json,
    bytes: Buffer.from(json),
  };
}

function byNameThenSlug(a: Entry, b: Entry): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}
