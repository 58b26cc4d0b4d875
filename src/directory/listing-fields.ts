// The spec's Listing fields: which there are, the order in which every listing is stored and
// served, and how long each may be. listings.ts validates a listing against them.

export const KINDS = ['community', 'tool'];
export const STATUSES = ['documented', 'unavailable', 'limited'];
/** What `check_status` may say: never checked, every read answered as promised, or something did not. */
export const CHECK_STATUSES = ['unchecked', 'passed', 'failed'] as const;

/** The spec's main fields, always present, in the order they are served. */
export const REQUIRED_FIELDS = [
  'slug',
  'kind',
  'name',
  'category',
  'description',
  'url',
  'docs_url',
  'tags',
  'details',
  'verified_at',
  'status',
] as const;

/**
 * The spec's additional fields, and check_note (what the last live read check found wrong):
 * present only on listings that have them, never null.
 */
export const OPTIONAL_FIELDS = [
  'entry_url',
  'entry_type',
  'auth_type',
  'auth_note',
  'quickstart',
  'example_request',
  'writes',
  'writes_note',
  'rate_limits',
  'gotchas',
  'tested_by',
  'last_tested_at',
  'check_status',
  'checked_at',
  'check_note',
  'disclosure',
  'field_notes',
] as const;

export const URL_FIELDS = new Set(['url', 'docs_url', 'entry_url']);
export const DATE_FIELDS = new Set(['verified_at', 'last_tested_at']);
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$';

// Length limits, in characters (Unicode code points), with room above the longest shipped
// value. Every listing is held in memory and served whole in pages of up to 100, so one
// runaway value would weigh on every answer and every page that shows it.
const NAME_MAX_CHARS = 100; // a name is a title; the longest shipped is about 30
const IDENTIFIER_MAX_CHARS = 40; // kind, status, auth_type, writes, dates: short words or YYYY-MM-DD
const CATEGORY_MAX_CHARS = 60; // a category is a label in a filter menu; shipped ones are one word
const TAGS_MAX_CHARS = 500; // a comma-separated line of keywords; the longest shipped is about 60
const URL_MAX_CHARS = 2048; // the length that browsers, proxies and CDNs all accept
const DESCRIPTION_MAX_CHARS = 1000; // a paragraph, shown in every list item; shipped ones are under 200
const PROSE_MAX_CHARS = 2000; // a few sentences: auth_note, writes_note, rate_limits, disclosure
const STEPS_MAX_CHARS = 4000; // quickstart, example_request and gotchas: a short how-to; shipped ones are under 400
type Field = (typeof REQUIRED_FIELDS)[number] | (typeof OPTIONAL_FIELDS)[number];
export type TextField = Exclude<Field, 'details' | 'field_notes'>;
/** The longest each string field may be. */
export const FIELD_MAX_CHARS: Readonly<Record<TextField, number>> = {
  slug: 100, // as SLUG_PATTERN says
  kind: IDENTIFIER_MAX_CHARS,
  name: NAME_MAX_CHARS,
  category: CATEGORY_MAX_CHARS,
  description: DESCRIPTION_MAX_CHARS,
  url: URL_MAX_CHARS,
  docs_url: URL_MAX_CHARS,
  tags: TAGS_MAX_CHARS,
  verified_at: IDENTIFIER_MAX_CHARS,
  status: IDENTIFIER_MAX_CHARS,
  entry_url: URL_MAX_CHARS,
  entry_type: IDENTIFIER_MAX_CHARS,
  auth_type: IDENTIFIER_MAX_CHARS,
  auth_note: PROSE_MAX_CHARS,
  quickstart: STEPS_MAX_CHARS,
  example_request: STEPS_MAX_CHARS,
  writes: IDENTIFIER_MAX_CHARS,
  writes_note: PROSE_MAX_CHARS,
  rate_limits: PROSE_MAX_CHARS,
  gotchas: STEPS_MAX_CHARS,
  tested_by: IDENTIFIER_MAX_CHARS,
  last_tested_at: IDENTIFIER_MAX_CHARS,
  check_status: IDENTIFIER_MAX_CHARS,
  checked_at: IDENTIFIER_MAX_CHARS,
  check_note: PROSE_MAX_CHARS,
  disclosure: PROSE_MAX_CHARS,
};
export const DETAILS_MAX_MEMBERS = 30; // the spec observes 13 member names; shipped listings use at most 8
export const DETAIL_NAME_MAX_CHARS = 40; // a member name is an identifier such as post_or_reply
export const DETAIL_MAX_CHARS = 2000; // one instruction, a few sentences; shipped ones are under 300
export const FIELD_NOTES_MAX = 60; // one note per claim: every field and details member could have one
/** The longest each member of a field note may be. */
export const NOTE_MEMBER_MAX_CHARS: Readonly<Record<string, number>> = {
  field: 8 + DETAIL_NAME_MAX_CHARS, // "details." and a member name
  source: URL_MAX_CHARS,
  note: 1000, // one sentence saying what the page says; shipped ones are under 300
  seen_at: IDENTIFIER_MAX_CHARS,
};
