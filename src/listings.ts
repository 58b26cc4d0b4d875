// The spec's Listing: validation for the shipped file and the owner's imports, and the
// canonical field order in which every listing is stored and served.

import { readFileSync } from 'node:fs';

export type Listing = Record<string, string | Record<string, string> | unknown[]>;

export const KINDS = ['community', 'tool'];
export const STATUSES = ['documented', 'unavailable', 'limited'];
const DETAIL_NAMES_HINT =
  'purpose, interfaces, registration, anonymous, api, read, post_or_reply, continuity, rate_limits, pricing, open_source, verification, authentication';

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

/** The spec's additional fields: present only on listings that have them, never null. */
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
  'disclosure',
  'field_notes',
] as const;

export const URL_FIELDS = new Set(['url', 'docs_url', 'entry_url']);
export const DATE_FIELDS = new Set(['verified_at', 'last_tested_at']);
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$';
const KNOWN_FIELDS = new Set<string>([...REQUIRED_FIELDS, ...OPTIONAL_FIELDS]);

/** Every problem found in a listings document; the message names listing and field. */
export class ListingsError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}

/** Validates a parsed listings document (an array of listings); returns them normalised. */
export function parseListings(input: unknown): Listing[] {
  if (!Array.isArray(input)) throw new ListingsError(['the listings file must hold a JSON array of listings']);
  const problems: string[] = [];
  const seen = new Set<string>();
  const listings = input.map((item, index) => {
    const label =
      typeof item?.slug === 'string' && item.slug ? `listing ${index} ("${item.slug}")` : `listing ${index}`;
    const found: string[] = [];
    const listing = parseListing(item, (field, problem) => found.push(`${label}: ${field} ${problem}`));
    if (typeof item?.slug === 'string') {
      if (seen.has(item.slug)) found.push(`${label}: slug "${item.slug}" is used by an earlier listing`);
      seen.add(item.slug);
    }
    problems.push(...found);
    return listing;
  });
  if (problems.length > 0) throw new ListingsError(problems);
  return listings;
}

/** Reads and validates a listings file; throws ListingsError naming the file on any problem. */
export function readListingsFile(file: string): Listing[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const problem = err instanceof SyntaxError ? `${file} is not valid JSON` : `cannot read ${file}`;
    throw new ListingsError([`${problem}: ${(err as Error).message}`]);
  }
  try {
    return parseListings(parsed);
  } catch (err) {
    if (err instanceof ListingsError) throw new ListingsError(err.problems.map((p) => `${file}: ${p}`));
    throw err;
  }
}

function parseListing(item: unknown, problem: (field: string, text: string) => void): Listing {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    problem('listing', 'must be a JSON object');
    return {};
  }
  const source = item as Record<string, unknown>;
  for (const field of Object.keys(source)) {
    if (!KNOWN_FIELDS.has(field)) problem(field, 'is not a Listing field (check the spelling against the spec)');
  }
  const listing: Listing = {};
  for (const field of [...REQUIRED_FIELDS, ...OPTIONAL_FIELDS]) {
    const required = (REQUIRED_FIELDS as readonly string[]).includes(field);
    if (!(field in source) && !required) continue;
    const failure =
      !(field in source) || source[field] === null
        ? required
          ? 'is required'
          : 'must be left out rather than null'
        : fieldProblem(field, source[field]);
    if (failure) problem(field, failure);
    else listing[field] = source[field] as Listing[string];
  }
  if (Array.isArray(listing.field_notes)) checkFieldNotes(listing, problem);
  return listing;
}

const NOTE_KEYS = ['field', 'source', 'note', 'seen_at'];

/**
 * Each note says where one claim of this listing comes from: it names a field the listing
 * has (or details.<member>), an https page, what that page says, and the day it was read.
 */
function checkFieldNotes(listing: Listing, problem: (field: string, text: string) => void): void {
  const details = listing.details as Record<string, string> | undefined;
  const claims = new Set([...Object.keys(listing), ...Object.keys(details ?? {}).map((name) => `details.${name}`)]);
  (listing.field_notes as unknown[]).forEach((item, index) => {
    const at = `field_notes[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return problem(at, 'must be an object { field, source, note, seen_at }');
    const note = item as Record<string, unknown>;
    const extra = Object.keys(note).filter((key) => !NOTE_KEYS.includes(key));
    if (extra.length > 0) problem(at, `has unknown members (${extra.join(', ')}); allowed: ${NOTE_KEYS.join(', ')}`);
    if (typeof note.field !== 'string' || !claims.has(note.field)) {
      problem(
        `${at}.field`,
        `must name a field this listing has, or details.<member>, got ${JSON.stringify(note.field ?? null)}`,
      );
    }
    if (typeof note.source !== 'string' || !/^https:\/\/[^\s]+$/.test(note.source)) {
      problem(`${at}.source`, `must be the https URL of the page read, got ${JSON.stringify(note.source ?? null)}`);
    }
    if (typeof note.note !== 'string' || note.note.trim() === '')
      problem(`${at}.note`, 'must say in one sentence what the page says');
    if (typeof note.seen_at !== 'string' || !isDate(note.seen_at)) {
      problem(
        `${at}.seen_at`,
        `must be the day the page was read, as YYYY-MM-DD, got ${JSON.stringify(note.seen_at ?? null)}`,
      );
    }
  });
}

/** What is wrong with one field's value, or null. */
function fieldProblem(field: string, value: unknown): string | null {
  if (field === 'details') {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return `must be an object of strings (members such as ${DETAIL_NAMES_HINT})`;
    const bad = Object.entries(value)
      .filter(([, v]) => typeof v !== 'string')
      .map(([k]) => k);
    return bad.length > 0 ? `members must be strings (not: ${bad.join(', ')})` : null;
  }
  if (field === 'field_notes')
    return Array.isArray(value) ? null : 'must be an array of notes { field, source, note, seen_at }';
  if (typeof value !== 'string') return 'must be a string';
  if (field === 'slug' && !new RegExp(SLUG_PATTERN).test(value))
    return `must be 1 to 100 lowercase letters, digits and inner hyphens, got "${value}"`;
  if (field === 'kind' && !KINDS.includes(value)) return `must be one of ${KINDS.join(', ')}, got "${value}"`;
  if (field === 'status' && !STATUSES.includes(value)) return `must be one of ${STATUSES.join(', ')}, got "${value}"`;
  if ((field === 'name' || field === 'category' || field === 'description') && value.trim() === '')
    return 'must not be empty';
  if (URL_FIELDS.has(field) && !/^https?:\/\/[^\s]+$/.test(value)) return `must be an http(s) URL, got "${value}"`;
  if (DATE_FIELDS.has(field) && !isDate(value)) return `must be a date as YYYY-MM-DD, got "${value}"`;
  if (field === 'checked_at' && value !== '' && !isDate(value))
    return `must be a date as YYYY-MM-DD or empty, got "${value}"`;
  return null;
}

function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}
