// The SQL of the directory's listings (src/store/listing-rows.ts), on a real store: each listing
// stored whole as its JSON by slug, imported all or nothing, changed in a transaction of its own; a
// damaged row (no JSON object) is left out of the texts and never changed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryStore } from './seed-rows.ts';

/** A listing as the store takes it: its slug and any fields (validation is above the store). */
const listing = (slug: string, fields: Record<string, unknown>) => ({ slug, ...fields });

test('listings are inserted or replaced by slug, read back as their JSON in slug order, and removed', (t) => {
  const { listings } = memoryStore(t);
  assert.equal(listings.count(), 0);
  listings.upsert([
    listing('beta', { name: 'Beta' }),
    listing('alpha', { name: 'Alpha' }),
  ]);
  listings.upsert([listing('beta', { name: 'Beta, renamed' })]);
  assert.equal(listings.count(), 2);
  assert.deepEqual(listings.texts(), ['{"slug":"alpha","name":"Alpha"}', '{"slug":"beta","name":"Beta, renamed"}']);
  assert.equal(listings.remove('alpha'), true);
  assert.equal(listings.remove('alpha'), false, 'none left');
  assert.equal(listings.count(), 1);
});

test('an import that fails part way stores none of it', (t) => {
  const { listings } = memoryStore(t);
  listings.upsert([listing('kept', { name: 'Kept' })]);
  // JSON.stringify throws on a BigInt: the second listing fails after the first was written.
  const failing = [listing('kept', { name: 'Overwritten' }), listing('new', { size: 1n })];
  assert.throws(() => listings.upsert(failing), TypeError);
  assert.deepEqual(listings.texts(), ['{"slug":"kept","name":"Kept"}']);
});

test('a damaged row is counted, left out of the texts, and never changed', (t) => {
  const store = memoryStore(t);
  store.listings.upsert([listing('good', { name: 'Good' })]);
  store.db.prepare("INSERT INTO listings (slug, listing) VALUES ('bad', '[1, 2]'), ('worse', '{no json')").run();
  assert.equal(store.listings.count(), 3);
  assert.deepEqual(store.listings.texts(), ['{"slug":"good","name":"Good"}']);
  let called = false;
  assert.equal(
    store.listings.change('worse', (stored) => ((called = true), stored)),
    false,
  );
  assert.equal(called, false, 'the change is not even asked');
});

test('a change gets the listing as stored now and stores what it returns; a failed change stores nothing', (t) => {
  const { listings } = memoryStore(t);
  listings.upsert([listing('one', { name: 'One', checked: false })]);
  assert.equal(
    listings.change('one', (stored) => ({ ...stored, checked: true })),
    true,
  );
  assert.deepEqual(listings.texts(), ['{"slug":"one","name":"One","checked":true}']);
  assert.equal(listings.change('none', (stored) => stored), false, 'no listing has that slug');
  assert.throws(() =>
    listings.change('one', () => {
      throw new Error('the check failed');
    }),
  );
  assert.deepEqual(listings.texts(), ['{"slug":"one","name":"One","checked":true}']);
});
