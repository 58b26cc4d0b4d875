// One listing, one story: the summary fields an agent reads first (rate_limits, auth_type,
// auth_note) never say more or less than details and the notes, and a note on a page last changed
// over a year before it was read says what newer source confirms it, or that nothing does. The
// rules are written down in docs/directory.md ("One listing, one story").

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { keylessGet } from '../../src/directory/read-check.ts';
import { ROOT } from '../helpers.ts';

interface Note {
  field: string;
  source: string;
  note: string;
  seen_at: string;
}
type Listing = Record<string, unknown> & { slug: string; details: Record<string, string>; field_notes?: Note[] };

/** The notes that may back each summary field: its own, and those of the details member it sums up. */
const FAMILIES: Record<string, readonly string[]> = {
  rate_limits: ['rate_limits', 'details.rate_limits'],
  auth_note: ['auth_note', 'auth_type', 'details.authentication'],
};
const CAVEAT = /second-hand|unconfirmed/i;
const MARKED = /^(Second-hand: )?Unconfirmed: |^Second-hand: /;
const YEAR_MS = 365 * 86_400_000;

/** The numbers a text states: 1,000 as 1000, 0.10 as is; not dates, and not the 1 of v1 or the 2 of HTTP/2. */
export function numbersIn(text: string): Set<string> {
  const undated = text.replace(/\b\d{4}-\d{2}-\d{2}\b/g, ' ');
  const found = undated.match(/(?<![A-Za-z_/.\d])\d+(?:,\d{3})*(?:\.\d+)?/g) ?? [];
  return new Set(found.map((number) => number.replaceAll(',', '')));
}

/** What is wrong with one listing's story, in words naming the field; empty when it holds together. */
export function storyProblems(listing: Listing): string[] {
  return [...summaryProblems(listing), ...authTypeProblems(listing), ...staleNoteProblems(listing)];
}

/** rate_limits and auth_note: the same numbers as details and the notes, and their caveats. */
function summaryProblems(listing: Listing): string[] {
  const problems: string[] = [];
  const notes = listing.field_notes ?? [];
  for (const [field, family] of Object.entries(FAMILIES)) {
    const summary = listing[field];
    if (typeof summary !== 'string') continue;
    const backing = notes.filter((note) => family.includes(note.field));
    const detail = field === 'rate_limits' ? listing.details.rate_limits : undefined;
    const own = notes.filter((note) => note.field === field);
    const caveated = CAVEAT.test(summary);
    if (own.length > 0 && own.every((note) => MARKED.test(note.note)) && !caveated)
      problems.push(`${field}: every note on it is second-hand or unconfirmed, and it does not say so`);
    for (const number of numbersIn(summary)) {
      if (detail !== undefined && !numbersIn(detail).has(number))
        problems.push(`${field}: states ${number}, which details.rate_limits does not`);
      const behind = backing.filter((note) => numbersIn(note.note).has(number));
      if (behind.length === 0)
        problems.push(`${field}: states ${number}, which no note on ${family.join(' or ')} does`);
      else if (behind.every((note) => MARKED.test(note.note)) && !caveated)
        problems.push(`${field}: states ${number} as known first-hand, but its notes are second-hand or unconfirmed`);
    }
  }
  return problems;
}

const KEY_IN_EXAMPLE = /api[_-]?key=|Authorization|Bearer|<key>|YOUR_KEY|DEMO_KEY/i;
const NO_KEY = /^None\b|without a key|no key|optional/i;
const NAMES_KEY = /\bkey\b|token|OAuth|password/i;

/** auth_type none: the example and details.authentication need no key; api_key: they do. */
function authTypeProblems(listing: Listing): string[] {
  const example = typeof listing.example_request === 'string' ? listing.example_request : undefined;
  const authentication = listing.details.authentication;
  const keyless = example !== undefined && keylessGet(example) !== null && !KEY_IN_EXAMPLE.test(example);
  if (listing.auth_type === 'none') {
    const problems: string[] = [];
    if (example !== undefined && KEY_IN_EXAMPLE.test(example))
      problems.push('auth_type: none, but the example sends a key');
    if (authentication !== undefined && !NO_KEY.test(authentication))
      problems.push('auth_type: none, but details.authentication does not say that no key is needed');
    return problems;
  }
  if (listing.auth_type !== 'api_key') return [];
  const problems: string[] = [];
  if (keyless) problems.push('auth_type: api_key, but the example request needs no key');
  const said = [listing.auth_note, authentication].filter((text) => typeof text === 'string') as string[];
  if (!said.some((text) => NAMES_KEY.test(text)))
    problems.push('auth_type: api_key, but neither auth_note nor details.authentication names the key');
  return problems;
}

/** A note on a page "last changed" over a year before it was read says what confirms it, or is marked Unconfirmed. */
function staleNoteProblems(listing: Listing): string[] {
  return (listing.field_notes ?? []).flatMap((note, index) => {
    const changed = /last changed (\d{4}-\d{2}-\d{2})/.exec(note.note)?.[1];
    if (changed === undefined || Date.parse(note.seen_at) - Date.parse(changed) <= YEAR_MS) return [];
    if (/^(Second-hand: )?Unconfirmed: /.test(note.note)) return [];
    if (/\bconfirmed by\b/i.test(note.note)) return [];
    return [`field_notes[${index}]: its page was last changed ${changed}, over a year before ${note.seen_at}`];
  });
}

function shipped(): Listing[] {
  return JSON.parse(readFileSync(path.join(ROOT, 'data/listings.json'), 'utf8')) as Listing[];
}

test('every shipped listing tells one story: summary fields agree with details and the notes', () => {
  const problems = shipped().flatMap((listing) =>
    storyProblems(listing).map((problem) => `${listing.slug}: ${problem}`),
  );
  assert.deepEqual(problems, []);
});

const note = (field: string, text: string): Note => ({
  field,
  source: 'https://example.org/page',
  note: text,
  seen_at: '2026-11-26',
});

test('MusicBrainz as it was fails: a summary that drops the caveat of the details it sums up', () => {
  const musicbrainz: Listing = {
    slug: 'musicbrainz-api',
    auth_type: 'none',
    rate_limits: '1 request per second per IP on average; exceeding it returns 503.',
    details: {
      rate_limits:
        'Checked in order: per User-Agent (50 requests per second on average for heavy or anonymous user ' +
        'agents), per source IP, then global; a request failing any check gets 503. The per-IP average of 1 ' +
        'request per second and the global 300 per second are known only second-hand.',
    },
    field_notes: [
      note('details.rate_limits', 'The page denies a failing request with 503; anonymous agents get 50 a second.'),
      note('details.rate_limits', 'Second-hand: an issue gives 1 per second per IP and 300 per second globally.'),
      note('rate_limits', 'Second-hand: the same issue quotes that IPs over 1 request per second are blocked.'),
    ],
  };
  assert.deepEqual(storyProblems(musicbrainz), [
    'rate_limits: every note on it is second-hand or unconfirmed, and it does not say so',
    'rate_limits: states 1 as known first-hand, but its notes are second-hand or unconfirmed',
  ]);
  musicbrainz.rate_limits = 'Second-hand: 1 request per second per IP on average; exceeding it returns 503.';
  assert.deepEqual(storyProblems(musicbrainz), []);
  musicbrainz.rate_limits = 'Second-hand: 2 requests per second per IP; exceeding it returns 503.';
  assert.deepEqual(storyProblems(musicbrainz), [
    'rate_limits: states 2, which details.rate_limits does not',
    'rate_limits: states 2, which no note on rate_limits or details.rate_limits does',
  ]);
});

test('auth_type agrees with the example and details.authentication', () => {
  const listing = (fields: Record<string, unknown>): Listing => ({ slug: 'keyed', details: {}, ...fields });
  const keyless = 'GET https://api.example.org/items?q=x';
  assert.deepEqual(storyProblems(listing({ auth_type: 'api_key', auth_note: 'A key.', example_request: keyless })), [
    'auth_type: api_key, but the example request needs no key',
  ]);
  assert.deepEqual(storyProblems(listing({ auth_type: 'none', example_request: `${keyless}&api_key=DEMO_KEY` })), [
    'auth_type: none, but the example sends a key',
  ]);
  const required = { authentication: 'An API key from a free account is required.' };
  assert.deepEqual(storyProblems(listing({ auth_type: 'none', details: required })), [
    'auth_type: none, but details.authentication does not say that no key is needed',
  ]);
  assert.deepEqual(storyProblems(listing({ auth_type: 'api_key', details: required })), []);
});

test('a note on a page last changed over a year before it was read says what confirms it, or Unconfirmed', () => {
  const stale = note('details.api', 'The README (last changed 2024-09-28) lists the endpoints.');
  const listing: Listing = { slug: 'stale', details: { api: 'x' }, field_notes: [stale] };
  assert.deepEqual(storyProblems(listing), [
    'field_notes[0]: its page was last changed 2024-09-28, over a year before 2026-11-26',
  ]);
  stale.note = `Unconfirmed: ${stale.note}`;
  assert.deepEqual(storyProblems(listing), []);
  stale.note = 'The README (last changed 2024-09-28; confirmed by the OpenAPI file of 2026-08-01) lists them.';
  assert.deepEqual(storyProblems(listing), []);
  assert.deepEqual([...numbersIn('1,000 an hour, $0.10, HTTP/2, v1, 2026-11-28, 5-minute, 429')], [
    '1000',
    '0.10',
    '5',
    '429',
  ]);
});
