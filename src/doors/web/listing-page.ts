// One listing as a page for people: how an agent takes part, in words rather than field
// values; the day it was read against the service's own documentation; and for each noted
// claim, a link to the page it comes from.

import type { Reply } from '../../http/context.ts';
import type { Listing } from '../../directory/listings.ts';
import { refuse } from '../../refusals/refusal.ts';
import { escapeHtml, htmlReply, layout, type PageContext } from './pages.ts';

interface FieldNote {
  readonly field: string;
  readonly source: string;
  readonly note: string;
  readonly seen_at: string;
}

/** The additional fields shown, with their labels (details' members are labelled from their names). */
const FIELD_LABELS: readonly (readonly [string, string])[] = [
  ['quickstart', 'Quick start'],
  ['example_request', 'Example request'],
  ['auth_type', 'Authentication type'],
  ['auth_note', 'Authentication notes'],
  ['rate_limits', 'Rate limits'],
  ['writes', 'Writes'],
  ['writes_note', 'About writes'],
  ['gotchas', 'Gotchas'],
  ['entry_url', 'Entry point'],
  ['entry_type', 'Entry point type'],
];
/** Values the listings spell as identifiers, as people say them. */
const VALUE_WORDS: Record<string, string> = {
  read_only: 'Read only',
  api_key: 'API key',
  none: 'None',
  html_only: 'HTML only',
  openapi: 'OpenAPI description',
};

/** GET /listings/{slug} */
export function listingPage(ctx: PageContext): Reply {
  const listing = ctx.app.directory.listing(ctx.params.slug as string);
  if (!listing) throw refuse('no_listing');
  const notes = (listing.field_notes ?? []) as FieldNote[];
  const entry = (label: string, value: string, field: string) =>
    `<dt>${escapeHtml(label)}</dt><dd>${value}${sourceLinks(notes, field)}</dd>`;
  const details = Object.entries(listing.details as Record<string, string>)
    .map(([name, text]) => entry(sentenceCase(name), escapeHtml(text), `details.${name}`))
    .join('\n');
  const extras = FIELD_LABELS.filter(([field]) => typeof listing[field] === 'string' && listing[field] !== '')
    .map(([field, label]) => entry(label, shown(field, listing[field] as string), field))
    .join('\n');
  const kind = listing.kind === 'tool' ? 'Tool' : 'Community';
  const sourced = notes.length > 0 ? '; each [source] opens the page a claim comes from' : '';
  const main = `<p><a href="/">← All listings</a></p>
<h1>${escapeHtml(listing.name)}</h1>
<p class="meta">${kind} · ${escapeHtml(listing.category)} · ${escapeHtml(listing.status)} \
· read against its documentation on ${escapeHtml(listing.verified_at)}${sourced}</p>
<p>${escapeHtml(listing.description)}</p>
<p><a href="${escapeHtml(listing.url)}" rel="noopener">${escapeHtml(listing.url)}</a> \
· <a href="${escapeHtml(listing.docs_url)}" rel="noopener">Documentation</a></p>
<h2>How to take part</h2>
<dl>
${details || '<dt>Details</dt><dd>None given.</dd>'}
</dl>
${extras ? `<h2>More for agents</h2>\n<dl>\n${extras}\n</dl>` : ''}
${sources(notes)}
${footnote(listing)}`;
  return htmlReply(ctx, layout(`${listing.name} — how an agent takes part`, main));
}

/** A [source] link for each note on `field`, titled with what the page says. */
function sourceLinks(notes: readonly FieldNote[], field: string): string {
  return notes
    .filter((note) => note.field === field)
    .map((note) => {
      const title = escapeHtml(note.note);
      return ` <a class="source" href="${escapeHtml(note.source)}" rel="noopener" title="${title}">[source]</a>`;
    })
    .join('');
}

/** The tags, where the listing's JSON is, and what this service's last live read check found. */
function footnote(listing: Listing): string {
  const tags = String(listing.tags)
    .split(',')
    .map((tag) => tag.trim())
    .join(', ');
  const slug = listing.slug as string;
  return `<p class="meta">Tags: ${escapeHtml(tags)} \
· JSON: <a href="/api/v1/directory/${encodeURIComponent(slug)}">/api/v1/directory/${escapeHtml(slug)}</a></p>
<p class="meta">${escapeHtml(checkSentence(listing))}</p>`;
}

/** The last read check in words: when, what passed, what failed, and whether the example was run. */
function checkSentence(listing: Listing): string {
  const on = String(listing.checked_at ?? '');
  const tested =
    listing.tested_by === 'read_tested'
      ? ` This service last ran its example request successfully on ${String(listing.last_tested_at)}.`
      : '';
  if (listing.check_status === 'passed') {
    return `Read check: on ${on} this service read its pages and found them answering.${tested}`;
  }
  if (listing.check_status === 'failed') {
    return `Read check: on ${on} this service found a problem: ${String(listing.check_note ?? '')}.${tested}`;
  }
  return 'Read check: not yet checked by this service; the claims above rest on the documentation as read.';
}

/** A field's value as people read it: numbered steps as a list, code as code, identifiers in words. */
function shown(field: string, value: string): string {
  if (field === 'example_request') return `<pre><code>${escapeHtml(value)}</code></pre>`;
  if (field === 'quickstart' && /^1\.\s/.test(value)) {
    const steps = numberedSteps(value).filter((step) => step !== '');
    if (steps.length > 1) return `<ol>${steps.map((step) => `<li>${escapeHtml(step)}</li>`).join('')}</ol>`;
  }
  return escapeHtml(inWords(value) ?? value);
}

/** An identifier as people say it; only VALUE_WORDS' own members, so "constructor" stays a word. */
function inWords(value: string): string | undefined {
  return Object.hasOwn(VALUE_WORDS, value) ? VALUE_WORDS[value] : undefined;
}

const SPACE = /\s/; // tested on one character at a time: white space as the old pattern's \s meant it

/**
 * The text cut at its step numbers, as text.split(/(?:^|\s+)\d+\.\s+/) cuts it: a number, a dot
 * and white space, at the start or after white space; the white space on both sides goes with
 * the number. One scan from left to right: that pattern went back over each run of white space
 * from every place in it, so a long run took time in its length squared.
 */
export function numberedSteps(text: string): string[] {
  const steps: string[] = [];
  let start = 0; // where the current step's text begins
  let at = 0;
  while (at < text.length) {
    const end = markerEnd(text, at);
    if (end !== -1) {
      steps.push(text.slice(start, at));
      start = end;
      at = end;
    } else {
      at = SPACE.test(text.charAt(at)) ? spacesEnd(text, at) : at + 1; // the rest of a run fails alike
    }
  }
  steps.push(text.slice(start));
  return steps;
}

/** Where a step marker that begins at `at` ends, or -1: "12. " at the start, or after white space. */
function markerEnd(text: string, at: number): number {
  if (at === 0) {
    const end = numberEnd(text, 0);
    if (end !== -1) return end;
  }
  if (!SPACE.test(text.charAt(at))) return -1;
  return numberEnd(text, spacesEnd(text, at));
}

/** Where digits, a dot and white space that begin at `at` end, or -1. */
function numberEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++; // 0-9
  if (end === at || text.charAt(end) !== '.' || !SPACE.test(text.charAt(end + 1))) return -1;
  return spacesEnd(text, end + 1);
}

/** The first position at or after `at` that is not white space. */
function spacesEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && SPACE.test(text.charAt(end))) end++;
  return end;
}

/** Every note, with the claim it backs and where and when it was read. */
function sources(notes: readonly FieldNote[]): string {
  if (notes.length === 0) return '';
  const items = notes.map((note) => {
    const claim = escapeHtml(sentenceCase(note.field.replace(/^details\./, '')));
    const source = escapeHtml(note.source);
    return `<li><b>${claim}</b>: ${escapeHtml(note.note)} <a href="${source}" rel="noopener">${source}</a> \
(read ${escapeHtml(note.seen_at)})</li>`;
  });
  return `<h2>Sources</h2>\n<ul>\n${items.join('\n')}\n</ul>`;
}

function sentenceCase(name: string): string {
  const words = name
    .replace(/_/g, ' ')
    .replace(/\bapi\b/g, 'API')
    .replace(/\burl\b/g, 'URL');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
