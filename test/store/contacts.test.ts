// The SQL of the owner's contacts (src/store/contacts.ts), on a real store: an identity is a contact
// by itself or by its whole site; trusting and untrusting are each done once.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryStore } from './seed-rows.ts';

test('an identity is a contact by itself or by its whole site; has asks for the one key only', (t) => {
  const store = memoryStore(t);
  store.contacts.trust('agent:https://one.agent.test', '2026-03-10T12:00:00.000Z');
  store.contacts.trust('site:other.test', '2026-03-10T12:00:00.000Z');
  assert.equal(store.contacts.isContact('https://one.agent.test', 'agent.test'), true, 'by identity');
  assert.equal(store.contacts.isContact('https://two.agent.test', 'agent.test'), false, 'not its site');
  assert.equal(store.contacts.isContact('https://any.other.test', 'other.test'), true, 'by site');
  assert.equal(store.contacts.has('agent:https://one.agent.test'), true);
  assert.equal(store.contacts.has('site:agent.test'), false);
  assert.equal(store.contacts.has('agent:https://any.other.test'), false, 'the site is a contact, not each identity');
});

test('trust and untrust are each done once, and every contact is listed in order with when', (t) => {
  const store = memoryStore(t);
  assert.equal(store.contacts.trust('site:b.test', '2026-03-10T12:00:00.000Z'), true);
  assert.equal(store.contacts.trust('site:b.test', '2026-03-11T12:00:00.000Z'), false, 'already a contact');
  assert.equal(store.contacts.trust('agent:https://a.test', '2026-03-10T13:00:00.000Z'), true);
  assert.deepEqual(
    store.contacts.all().map((row) => ({ ...row })),
    [
      { contact: 'agent:https://a.test', trusted_at: '2026-03-10T13:00:00.000Z' },
      { contact: 'site:b.test', trusted_at: '2026-03-10T12:00:00.000Z' },
    ],
  );
  assert.equal(store.contacts.untrust('site:b.test'), true);
  assert.equal(store.contacts.untrust('site:b.test'), false, 'none left');
  assert.equal(store.contacts.isContact('https://x.b.test', 'b.test'), false);
});
