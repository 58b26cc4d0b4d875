// The owner's contacts: the verified agents the owner knows, one identity (`trust <id>`, the identity
// that signed a conversation's opening) or a whole site (`trust --site`). A contact's messages count
// against the shared maximum and the conversation's share only, never against the pools or a site's
// share (rules/quotas.ts): no flood of strangers, signed or not, can take a contact's room.

import { siteOf } from '../base/sites.ts';
import { isoTime } from '../base/time.ts';
import { refuse } from '../refusals/refusal.ts';
import type { ContactKey } from '../store/contacts.ts';
import type { Store } from '../store/store.ts';
import { existing } from './conversations.ts';

/** Whether a verified identity is one of the owner's contacts, by itself or by its site. */
export function isContact(store: Store, identity: string | null): boolean {
  return identity !== null && store.contacts.isContact(identity, siteOf(identity));
}

/** The contact a conversation names: the verified agent that opened it; refused for an unsigned opening. */
export function contactOf(store: Store, id: string): ContactKey {
  const { verified_agent: identity } = existing(store, id);
  if (identity === null) throw refuse('unverified_opening', id);
  return `agent:${identity}`;
}

/** Makes a contact (an identity, or a site as `site:<site>`); false when it was one already. */
export function trust(store: Store, contact: ContactKey, at = Date.now()): boolean {
  return store.transaction(() => store.contacts.trust(contact, isoTime(at)));
}

/** Ends a contact; refused when it is none. */
export function untrust(store: Store, contact: ContactKey): void {
  store.transaction(() => {
    if (!store.contacts.untrust(contact)) throw refuse('not_a_contact', contact.replace(/^(agent|site):/, ''));
  });
}
