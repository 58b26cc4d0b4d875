import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ListingsError, parseListings, type Listing } from '../src/listings.ts';
import { ROOT } from './helpers.ts';

/** The claims an agent depends on: each needs a note citing the page it was read from. */
const SOURCED_CLAIMS = [
  'auth_type',
  'auth_note',
  'rate_limits',
  'details.authentication',
  'details.registration',
  'details.anonymous',
  'details.rate_limits',
  'details.pricing',
  'details.post_or_reply',
];

interface Note {
  field: string;
  source: string;
  note: string;
  seen_at: string;
}

const minimal = {
  slug: 'noted',
  kind: 'tool',
  name: 'Noted',
  category: 'data',
  description: 'd',
  url: 'https://example.org',
  docs_url: 'https://example.org/docs',
  tags: 't',
  details: { pricing: 'Free.' },
  verified_at: '2026-11-23',
  status: 'documented',
};
const note = (overrides: Record<string, unknown>) => ({
  field: 'details.pricing',
  source: 'https://example.org/pricing',
  note: 'The page says it is free.',
  seen_at: '2026-11-23',
  ...overrides,
});

function problemsOf(listing: Record<string, unknown>): readonly string[] {
  try {
    parseListings([listing]);
  } catch (err) {
    if (err instanceof ListingsError) return err.problems;
    throw err;
  }
  return [];
}

test('a well-formed note passes, and each malformed one is named by listing, note and member', () => {
  assert.deepEqual(problemsOf({ ...minimal, field_notes: [note({}), note({ field: 'docs_url' })] }), []);
  const cases: [unknown, RegExp][] = [
    ['not a list', /^listing 0 \("noted"\): field_notes must be an array of notes \{ field, source, note, seen_at \}$/],
    [['a string'], /^listing 0 \("noted"\): field_notes\[0\] must be an object/],
    [[note({ extra: 1 })], /field_notes\[0\] has unknown members \(extra\); allowed: field, source, note, seen_at/],
    [
      [note({ field: 'details.registration' })],
      /field_notes\[0\]\.field must name a field this listing has, or details\.<member>, got "details\.registration"/,
    ],
    [[note({ field: 'rate_limits' })], /field_notes\[0\]\.field must name a field this listing has/],
    [
      [note({ source: 'http://example.org/pricing' })],
      /field_notes\[0\]\.source must be the https URL of the page read, got "http:\/\/example\.org\/pricing"/,
    ],
    [[note({ source: 'the website' })], /field_notes\[0\]\.source must be the https URL/],
    [[note({ note: '  ' })], /field_notes\[0\]\.note must say in one sentence what the page says/],
    [
      [note({ seen_at: '2026-02-30' })],
      /field_notes\[0\]\.seen_at must be the day the page was read, as YYYY-MM-DD, got "2026-02-30"/,
    ],
    [[note({}), note({ seen_at: undefined })], /field_notes\[1\]\.seen_at must be the day the page was read/],
  ];
  for (const [notes, expected] of cases) {
    const problems = problemsOf({ ...minimal, field_notes: notes });
    assert.equal(problems.length, 1, `${JSON.stringify(notes)}: ${problems.join(' | ')}`);
    assert.match(problems[0] as string, expected);
  }
});

test('the shipped listings are valid, plentiful, of both kinds and honest about checks', () => {
  const listings = shipped();
  assert.ok(listings.length >= 40, `${listings.length} listings`);
  assert.deepEqual([...new Set(listings.map((listing) => listing.kind))].sort(), ['community', 'tool']);
  assert.ok(new Set(listings.map((listing) => listing.category)).size >= 6);
  for (const listing of listings) {
    assert.ok(Object.keys(listing.details as object).length >= 3, `${listing.slug} has participation details`);
    assert.equal(listing.check_status, 'unchecked', String(listing.slug));
    assert.equal(listing.checked_at, '', String(listing.slug));
    assert.equal(listing.tested_by, undefined, `${listing.slug} claims no test nobody ran`);
    assert.equal(listing.last_tested_at, undefined, `${listing.slug} claims no test nobody ran`);
  }
  assert.ok(listings.filter((listing) => 'quickstart' in listing || 'example_request' in listing).length >= 20);
});

test('every shipped claim an agent depends on cites the https page it was read from, on verified_at', () => {
  const today = new Date().toISOString().slice(0, 10);
  for (const listing of shipped()) {
    const notes = listing.field_notes as Note[];
    const noted = new Set(notes.map((item) => item.field));
    const details = Object.keys(listing.details as object).map((name) => `details.${name}`);
    for (const claim of SOURCED_CLAIMS.filter((field) => field in listing || details.includes(field))) {
      assert.ok(noted.has(claim), `${listing.slug}: ${claim} has no field note`);
    }
    for (const item of notes) assert.match(item.source, /^https:\/\//, `${listing.slug}: ${item.field}`);
    const lastRead = notes
      .map((item) => item.seen_at)
      .sort()
      .at(-1);
    assert.equal(listing.verified_at, lastRead, `${listing.slug}: verified_at is the day its notes were last read`);
    assert.ok(String(listing.verified_at) <= today, `${listing.slug}: verified_at is not in the future`);
    if (listing.status !== 'documented')
      assert.ok(noted.has('status'), `${listing.slug}: a ${listing.status} status says why`);
  }
});

function shipped(): Listing[] {
  return parseListings(JSON.parse(readFileSync(path.join(ROOT, 'data/listings.json'), 'utf8')));
}
