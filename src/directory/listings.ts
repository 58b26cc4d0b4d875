// The spec's Listing: validation for the shipped file and the owner's imports, and the
// canonical field order in which every listing is stored and served.

import { readFileSync } from 'node:fs';
import {
  CHECK_STATUSES,
  DATE_FIELDS,
  DETAIL_MAX_CHARS,
  DETAIL_NAME_MAX_CHARS,
  DETAILS_MAX_MEMBERS,
  FIELD_MAX_CHARS,
  FIELD_NOTES_MAX,
  KINDS,
  NOTE_MEMBER_MAX_CHARS,
  OPTIONAL_FIELDS,
  REQUIRED_FIELDS,
  SLUG_PATTERN,
  STATUSES,
  URL_FIELDS,
  type TextField,
} from './listing-fields.ts';
import { codePointLength } from '../rules/validate.ts';

export type Listing = Record<string, string | Record<string, string> | unknown[]>;

const DETAIL_NAMES_HINT =
  'purpose, interfaces, registration, anonymous, api, read, post_or_reply, continuity, rate_limits, pricing, ' +
  'open_source, verification, authentication';
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
    const named = typeof item?.slug === 'string' && item.slug !== '' && item.slug.length <= FIELD_MAX_CHARS.slug;
    const label = named ? `listing ${index} ("${item.slug}")` : `listing ${index}`;
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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ListingsError([`cannot read ${file}: ${(err as Error).message}`]);
  }
  return parseListingsText(text, file);
}

/** A listings document as text, from a file or standard input; `source` names it in every problem. */
export function parseListingsText(text: string, source: string): Listing[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ListingsError([`${source} is not valid JSON: ${(err as Error).message}`]);
  }
  try {
    return parseListings(parsed);
  } catch (err) {
    if (err instanceof ListingsError) throw new ListingsError(err.problems.map((p) => `${source}: ${p}`));
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
  if (listing.details !== undefined) checkDetailLengths(listing.details as Record<string, string>, problem);
  if (Array.isArray(listing.field_notes)) checkFieldNotes(listing, problem);
  checkCheckFields(listing, problem);
  return listing;
}

/** A listing never checked has no check day; a checked one has the day of its check. */
function checkCheckFields(listing: Listing, problem: (field: string, text: string) => void): void {
  const { check_status: status, checked_at: at } = listing;
  if (status === undefined || at === undefined) return; // left out, or refused already
  const unchecked = status === 'unchecked';
  if (unchecked && at !== '') problem('checked_at', 'must be "" while check_status is unchecked');
  if (!unchecked && at === '') {
    problem('checked_at', `must be the day of the check (YYYY-MM-DD) while check_status is ${status}`);
  }
}

/** "must be at most N characters, got M" when the text is longer than `max` code points. */
function lengthProblem(value: string, max: number): string | null {
  if (value.length <= max) return null; // never fewer UTF-16 units than code points: no need to count
  const length = codePointLength(value);
  return length > max ? `must be at most ${max} characters, got ${length}` : null;
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
    for (const key of NOTE_KEYS.filter((name) => typeof note[name] === 'string')) {
      const failure = lengthProblem(note[key] as string, NOTE_MEMBER_MAX_CHARS[key] as number);
      if (failure) return problem(`${at}.${key}`, failure); // the checks below would quote the long value
    }
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
  if (field === 'details') return detailsProblem(value);
  if (field === 'field_notes') {
    if (!Array.isArray(value)) return 'must be an array of notes { field, source, note, seen_at }';
    return value.length > FIELD_NOTES_MAX ? `must hold at most ${FIELD_NOTES_MAX} notes, got ${value.length}` : null;
  }
  if (typeof value !== 'string') return 'must be a string';
  const tooLong = lengthProblem(value, FIELD_MAX_CHARS[field as TextField]);
  if (tooLong) return tooLong; // before the checks that quote the value
  if (field === 'slug' && !new RegExp(SLUG_PATTERN).test(value))
    return `must be 1 to 100 lowercase letters, digits and inner hyphens, got "${value}"`;
  if (field === 'kind' && !KINDS.includes(value)) return `must be one of ${KINDS.join(', ')}, got "${value}"`;
  if (field === 'status' && !STATUSES.includes(value)) return `must be one of ${STATUSES.join(', ')}, got "${value}"`;
  if ((field === 'name' || field === 'category' || field === 'description') && value.trim() === '')
    return 'must not be empty';
  if (URL_FIELDS.has(field) && !/^https?:\/\/[^\s]+$/.test(value)) return `must be an http(s) URL, got "${value}"`;
  if (DATE_FIELDS.has(field) && !isDate(value)) return `must be a date as YYYY-MM-DD, got "${value}"`;
  if (field === 'check_status' && !(CHECK_STATUSES as readonly string[]).includes(value))
    return `must be one of ${CHECK_STATUSES.join(', ')}, got "${value}"`;
  if (field === 'checked_at' && value !== '' && !isDate(value))
    return `must be a date as YYYY-MM-DD or empty, got "${value}"`;
  return null;
}

/** What is wrong with `details` as a whole, or null: an object of a few short-named strings. */
function detailsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `must be an object of strings (members such as ${DETAIL_NAMES_HINT})`;
  const members = Object.entries(value);
  if (members.length > DETAILS_MAX_MEMBERS)
    return `must have at most ${DETAILS_MAX_MEMBERS} members, got ${members.length}`;
  const longName = members.find(([name]) => lengthProblem(name, DETAIL_NAME_MAX_CHARS) !== null);
  if (longName)
    // before the message below, which names members
    return `member names must be at most ${DETAIL_NAME_MAX_CHARS} characters, got ${codePointLength(longName[0])}`;
  const bad = members.filter(([, v]) => typeof v !== 'string').map(([k]) => k);
  return bad.length > 0 ? `members must be strings (not: ${bad.join(', ')})` : null;
}

/** Each details member's text within its limit, named as details.<member>. */
function checkDetailLengths(details: Record<string, string>, problem: (field: string, text: string) => void): void {
  for (const [name, text] of Object.entries(details)) {
    const tooLong = lengthProblem(text, DETAIL_MAX_CHARS);
    if (tooLong) problem(`details.${name}`, tooLong);
  }
}

function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}
