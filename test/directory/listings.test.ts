// Listings as they enter: validation of the shipped file and imports, field limits, sourced notes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { numberedSteps } from '../../src/doors/web/listing-page.ts';
import {
  DETAIL_MAX_CHARS,
  DETAIL_NAME_MAX_CHARS,
  DETAILS_MAX_MEMBERS,
  FIELD_MAX_CHARS,
  FIELD_NOTES_MAX,
  NOTE_MEMBER_MAX_CHARS,
  URL_FIELDS,
} from '../../src/directory/listing-fields.ts';
import { ListingsError, parseListings, type Listing } from '../../src/directory/listings.ts';
import { Store } from '../../src/store/store.ts';
import { FIXTURE_LISTINGS, request, ROOT, startTestService } from '../helpers.ts';
import { seededRandom } from '../random.ts';

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

/** `max` characters: `start`, then x's. */
const text = (max: number, start = '') => start + 'x'.repeat(max - start.length);
const DATE_LIMITED = ['verified_at', 'last_tested_at', 'checked_at']; // a date is ten characters whatever the limit
const DAY = '2026-11-23';

/** Two numbered steps, then white space to `max` characters: the worst case for the old step pattern. */
const spacedSteps = (max: number) => '1. Sign up 2. Wait'.padEnd(max, ' \t\n');

/** A valid listing with every field, details member and field note at its longest. */
function atTheLimits(slug: string): Record<string, unknown> {
  const names = Array.from({ length: DETAILS_MAX_MEMBERS }, (_, i) => text(DETAIL_NAME_MAX_CHARS, `member_${i}_`));
  const note = (i: number) => ({
    field: `details.${names[i % names.length]}`,
    source: text(NOTE_MEMBER_MAX_CHARS.source as number, 'https://example.org/'),
    note: text(NOTE_MEMBER_MAX_CHARS.note as number),
    seen_at: DAY,
  });
  return {
    ...Object.fromEntries(Object.entries(FIELD_MAX_CHARS).map(([field, max]) => [field, text(max)])),
    ...Object.fromEntries(DATE_LIMITED.map((field) => [field, DAY])),
    ...Object.fromEntries([...URL_FIELDS].map((field) => [field, text(FIELD_MAX_CHARS.url, 'https://x.org/')])),
    slug: text(FIELD_MAX_CHARS.slug, slug),
    kind: 'tool',
    status: 'documented',
    check_status: 'failed', // checked on DAY, so check_note may be at its longest too
    quickstart: spacedSteps(FIELD_MAX_CHARS.quickstart),
    gotchas: spacedSteps(FIELD_MAX_CHARS.gotchas),
    details: Object.fromEntries(names.map((name) => [name, ' '.repeat(DETAIL_MAX_CHARS)])),
    field_notes: Array.from({ length: FIELD_NOTES_MAX }, (_, i) => note(i)),
  };
}

test('every listing field has a length limit, and a value past it is named by listing, field and length', () => {
  const listing = atTheLimits('limits');
  assert.deepEqual(problemsOf(listing), [], 'every field at its limit passes');
  const label = `listing 0 ("${listing.slug}")`;
  for (const [field, max] of Object.entries(FIELD_MAX_CHARS)) {
    const problems = problemsOf({ ...listing, [field]: `${text(max)}é` }); // checked before any other rule
    const named = field === 'slug' ? 'listing 0' : label; // a slug past its limit is not quoted
    assert.deepEqual(problems, [`${named}: ${field} must be at most ${max} characters, got ${max + 1}`], field);
  }
  const details = listing.details as Record<string, string>;
  const [first] = Object.keys(details);
  const over: [Record<string, unknown>, string][] = [
    [{ details: { ...details, [first!]: ' '.repeat(DETAIL_MAX_CHARS + 1) } }, `details.${first} must be at most`],
    [{ details: { ...details, extra: 'x' }, field_notes: [] }, `details must have at most ${DETAILS_MAX_MEMBERS}`],
    [{ details: { [text(DETAIL_NAME_MAX_CHARS + 1)]: 'x' }, field_notes: [] }, 'details member names must be at most'],
    [{ field_notes: [...(listing.field_notes as object[]), {}] }, `field_notes must hold at most ${FIELD_NOTES_MAX}`],
    [{ quickstart: 'é'.repeat(100_012) }, 'quickstart must be at most 4000 characters, got 100012'],
  ];
  for (const [change, says] of over) {
    const problems = problemsOf({ ...listing, ...change });
    assert.equal(problems.length, 1, problems.join(' | '));
    assert.ok(problems[0]!.startsWith(`${label}: ${says}`), problems[0]);
  }
  const note = (listing.field_notes as Record<string, string>[])[0]!;
  for (const member of ['field', 'source', 'note'] as const) {
    const long = { ...note, [member]: `${note[member]}x` };
    const problems = problemsOf({ ...listing, field_notes: [long] });
    const max = NOTE_MEMBER_MAX_CHARS[member] as number;
    const says = `field_notes[0].${member} must be at most ${max} characters, got ${max + 1}`;
    assert.deepEqual(problems, [`${label}: ${says}`]);
  }
});

test('the shipped and the test listings are all within the limits', () => {
  assert.ok(shipped().length > 0);
  assert.ok(parseListings(JSON.parse(readFileSync(FIXTURE_LISTINGS, 'utf8'))).length > 0);
});

test('numbered steps are cut exactly where the old pattern cut them', () => {
  const OLD = /(?:^|\s+)\d+\.\s+/; // quadratic on a long run of white space, so given only short texts here
  const typical = ['1. Sign up. 2. Get a key.  3. Call GET /x.', '1. One\n2. Two', '1.5 is not a step', 'Step 1. Go'];
  const random = seededRandom(25);
  const parts = ['1', '12', '.', ' ', '  ', '\n', '\u00a0', '\t', 'a', 'Go', '2.'];
  const texts = Array.from({ length: 5000 }, () =>
    Array.from({ length: Math.floor(random() * 12) }, () => parts[Math.floor(random() * parts.length)]).join(''),
  );
  for (const value of [...typical, ...texts]) assert.deepEqual(numberedSteps(value), value.split(OLD), value);
});

test('a listing page renders in linear time: at every limit, and past them from an older database', async (t) => {
  const service = await startTestService(t);
  const before = atTheLimits('before-limits');
  // Stored as a database written before the limits existed may hold it: the old step pattern took 7 to 10 s
  // on this quickstart, and every other request waited behind it.
  before.quickstart = `1. Sign up${' '.repeat(100_000)}`;
  before.gotchas = `1. Careful${'\n '.repeat(50_000)}`;
  const store = new Store(service.dbPath);
  store.listings.upsert([...parseListings([atTheLimits('at-limits')]), before]);
  store.close();
  const quickstarts = { 'at-limits': '<ol><li>Sign up</li><li>Wait', 'before-limits': '1. Sign up  ' };
  for (const [slug, shown] of Object.entries(quickstarts)) {
    const started = performance.now();
    const page = await request(service.url, 'GET', `/listings/${text(FIELD_MAX_CHARS.slug, slug)}`);
    const took = performance.now() - started;
    assert.equal(page.status, 200, page.text.slice(0, 300));
    assert.ok(page.text.includes(`<dt>Quick start</dt><dd>${shown}`), `${slug}: the quick start as before`);
    assert.ok(took < 200, `${slug} took ${Math.round(took)} ms to render; 200 ms is generous for a loaded machine`);
  }
});

function shipped(): Listing[] {
  return parseListings(JSON.parse(readFileSync(path.join(ROOT, 'data/listings.json'), 'utf8')));
}

test('every shipped listing that is not documented says why, in its description and a note on its status', () => {
  for (const listing of shipped()) {
    if (listing.status === 'documented') continue;
    const notes = (listing.field_notes ?? []) as { field: string }[];
    assert.ok(notes.some((note) => note.field === 'status'), `${listing.slug}: a note sources its ${listing.status}`);
  }
});
