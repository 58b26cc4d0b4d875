// What docs/directory.md and the README say of the shipped listings stays true: how many notes
// are first-hand, second-hand and unconfirmed, and on which days the listings were read.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseListings, type Listing } from '../../src/directory/listings.ts';
import { ROOT } from '../helpers.ts';

interface Note {
  field: string;
  source: string;
  note: string;
  seen_at: string;
}

function shipped(): Listing[] {
  return parseListings(JSON.parse(readFileSync(path.join(ROOT, 'data/listings.json'), 'utf8')));
}

function readmeSays(text: string): boolean {
  return readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ').includes(text);
}

test('docs/directory.md and the README give the true counts of first-hand and second-hand shipped notes', () => {
  const listings = JSON.parse(readFileSync(path.join(ROOT, 'data/listings.json'), 'utf8')) as Listing[];
  const notes = listings.flatMap((listing) => (listing.field_notes ?? []) as { note: string }[]);
  const secondHand = notes.filter((note) => note.note.startsWith('Second-hand: ')).length;
  const doc = readFileSync(path.join(ROOT, 'docs/directory.md'), 'utf8').replace(/\s+/g, ' ');
  const stated =
    `holds ${listings.length} listings with ${notes.length} field notes: ` + `${notes.length - secondHand} cite`;
  assert.ok(doc.includes(stated), `docs/directory.md should say "${stated}"`);
  assert.ok(doc.includes(`${secondHand} are marked \`Second-hand:\``), `${secondHand} second-hand notes`);
  const unconfirmed = notes.filter((note) => /^(Second-hand: )?Unconfirmed: /.test(note.note));
  const both = unconfirmed.filter((note) => note.note.startsWith('Second-hand: ')).length;
  const saysUnconfirmed = `${unconfirmed.length} notes are marked \`Unconfirmed:\` (${both} of them also second-hand)`;
  assert.ok(doc.includes(saysUnconfirmed), `docs/directory.md should say "${saysUnconfirmed}"`);
  assert.ok(readmeSays(`and the ${unconfirmed.length} whose page is over a year old and confirmed by nothing newer`));
  const told = `Of the ${notes.length} notes, ${notes.length - secondHand} rest on first-hand sources`;
  assert.ok(readmeSays(told), `the README should say "${told}"`);
  assert.ok(readmeSays(`the ${secondHand} that could only be read in a copy`), 'and how many do not');
  const copies = notes.filter(
    (note) =>
      !note.note.startsWith('Second-hand: ') &&
      /\((read in a (copy|mirror)|quoted (by|on|in) [^)]*|as restated by [^)]*)\)/.test(note.note),
  );
  assert.deepEqual(copies, [], 'a note read in a copy says so at its start');
});

test("docs/directory.md's reading dates are the listings', and it names the one note that is older", () => {
  const doc = readFileSync(path.join(ROOT, 'docs/directory.md'), 'utf8').replace(/\s+/g, ' ');
  const first = /re-read against the first two rules on (\d{4}-\d{2}-\d{2})/.exec(doc)?.[1];
  const again = /On (\d{4}-\d{2}-\d{2}) the (\d+) listings .* and the (\d+) notes read again carry it/.exec(doc);
  assert.ok(first && again, 'docs/directory.md says when the listings were read');
  const [, second, listingsAgain, notesAgain] = again;
  const listings = shipped();
  for (const listing of listings) {
    assert.ok([first, second].includes(String(listing.verified_at)), `${String(listing.slug)}: verified_at`);
  }
  const readAgain = listings.filter((listing) => listing.verified_at === second);
  assert.equal(readAgain.length, Number(listingsAgain));
  const notes = listings.flatMap((listing) => (listing.field_notes ?? []) as Note[]);
  assert.equal(notes.filter((item) => item.seen_at === second).length, Number(notesAgain));
  const older = listings.flatMap((listing) =>
    ((listing.field_notes ?? []) as Note[])
      .filter((item) => item.seen_at !== first && item.seen_at !== second)
      .map((item) => `${listing.slug} ${item.seen_at}`),
  );
  const stated = /other notes carry \d{4}-\d{2}-\d{2} but one, `([a-z0-9-]+)`[^,]*, which keeps (\d{4}-\d{2}-\d{2})/
    .exec(doc);
  assert.deepEqual(older, stated ? [`${stated[1]} ${stated[2]}`] : []);
});

