// The SQL of the owner's contacts: the agents the owner knows, by identity ('agent:<identity>') or by
// whole site ('site:<site>'). The rules count a contact's messages against no pool and no agent share
// (rules/quotas.ts); the owner's `trust` and `untrust` write here.

import type { DatabaseSync } from 'node:sqlite';

/** Who a contact is: one identity, or every identity of a site. */
export type ContactKey = `agent:${string}` | `site:${string}`;

function prepareStatements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    // one lookup for an identity and its site together
    either: sql('SELECT 1 FROM contacts WHERE contact IN (?, ?) LIMIT 1'),
    has: sql('SELECT 1 FROM contacts WHERE contact = ?'),
    trust: sql('INSERT INTO contacts (contact, trusted_at) VALUES (?, ?) ON CONFLICT (contact) DO NOTHING'),
    untrust: sql('DELETE FROM contacts WHERE contact = ?'),
    all: sql('SELECT contact, trusted_at FROM contacts ORDER BY contact'),
  };
}

export class ContactTable {
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    this.#sql = prepareStatements(db);
  }

  /** Whether the identity, or its whole site, is a contact. */
  isContact(identity: string, site: string): boolean {
    return this.#sql.either.get(`agent:${identity}`, `site:${site}`) !== undefined;
  }
  /** Whether this one identity, or this whole site, is a contact. */
  has(contact: ContactKey): boolean {
    return this.#sql.has.get(contact) !== undefined;
  }
  /** Makes a contact; false when it was one already. `at`: ISO 8601. */
  trust(contact: ContactKey, at: string): boolean {
    return Number(this.#sql.trust.run(contact, at).changes) > 0;
  }
  /** Ends a contact; false when there was none. */
  untrust(contact: ContactKey): boolean {
    return Number(this.#sql.untrust.run(contact).changes) > 0;
  }
  /** Every contact, with when the owner made it one. */
  all(): { contact: ContactKey; trusted_at: string }[] {
    return this.#sql.all.all() as { contact: ContactKey; trusted_at: string }[];
  }
}
