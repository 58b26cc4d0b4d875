// The SQL of the directory's listings: each stored whole as its JSON, keyed by slug. Validation is
// above the store (directory/listings.ts); the server reads them into its snapshot
// (directory/snapshot.ts), and the owner script imports, exports, removes and checks them.

import type { DatabaseSync } from 'node:sqlite';
import { storedObject } from '../base/stored-json.ts';
import { IS_OBJECT } from './damaged.ts';

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    count: sql('SELECT count(*) AS count FROM listings'),
    // A row that is no JSON object (a crafted restore) is left out here; damaged.ts names it.
    texts: sql(`SELECT listing FROM listings WHERE ${IS_OBJECT('listing')} ORDER BY slug`),
    upsert: sql(
      'INSERT INTO listings (slug, listing) VALUES (?, ?) ON CONFLICT (slug) DO UPDATE SET listing = excluded.listing',
    ),
    remove: sql('DELETE FROM listings WHERE slug = ?'),
    bySlug: sql('SELECT listing FROM listings WHERE slug = ?'),
    replace: sql('UPDATE listings SET listing = ? WHERE slug = ?'),
  };
}

export class ListingTable {
  readonly #sql: ReturnType<typeof prepareStatements>;
  readonly #transaction: <T>(fn: () => T) => T;

  /** `transaction`: the store's, so that a change of the listings is one write transaction. */
  constructor(db: DatabaseSync, transaction: <T>(fn: () => T) => T) {
    this.#sql = prepareStatements(db);
    this.#transaction = transaction;
  }

  count(): number {
    return (this.#sql.count.get() as { count: number }).count;
  }
  /** Every listing as stored (its JSON), by slug; a damaged one (no JSON object) is left out. */
  texts(): string[] {
    return (this.#sql.texts.all() as { listing: string }[]).map((row) => row.listing);
  }
  /** Inserts or replaces every listing, all or nothing. */
  upsert(listings: readonly { readonly slug?: unknown }[]): void {
    this.#transaction(() => {
      for (const listing of listings) this.#sql.upsert.run(String(listing.slug), JSON.stringify(listing));
    });
  }
  remove(slug: string): boolean {
    return Number(this.#sql.remove.run(slug).changes) > 0;
  }
  /**
   * Changes one stored listing in a write transaction: `change` gets the listing as stored now
   * and returns it changed, so an import made meanwhile is changed, never overwritten. False
   * when no listing has the slug (any more), or it is damaged.
   */
  change(slug: string, change: (listing: Record<string, unknown>) => unknown): boolean {
    return this.#transaction(() => {
      const row = this.#sql.bySlug.get(slug) as { listing: string } | undefined;
      const listing = row === undefined ? undefined : storedObject(row.listing);
      if (listing === undefined) return false; // none, or damaged: nothing to change
      this.#sql.replace.run(JSON.stringify(change(listing)), slug);
      return true;
    });
  }
}
