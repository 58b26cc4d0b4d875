// One listing as a page for people: how an agent takes part, in words rather than field
// values; the day it was read against the service's own documentation; and for each noted
// claim, a link to the page it comes from.

import type { Reply } from '../http.ts';
import { refuse } from '../refusals.ts';
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
  unchecked: 'not yet called by this service',
  read_tested: 'called by this service to read',
};

/** GET /listings/{slug} */
export function listingPage(ctx: PageContext): Reply {
  const listing = ctx.app.directory.listing(ctx.params.slug as string);
  if (!listing) throw refuse('noListing');
  const notes = (listing.field_notes ?? []) as FieldNote[];
  const sourceOf = (field: string) => {
    const noted = notes.filter((note) => note.field === field);
    return noted
      .map(
        (note) =>
          ` <a class="source" href="${escapeHtml(note.source)}" rel="noopener" title="${escapeHtml(note.note)}">[source]</a>`,
      )
      .join('');
  };
  const entry = (label: string, value: string, field: string) =>
    `<dt>${escapeHtml(label)}</dt><dd>${value}${sourceOf(field)}</dd>`;
  const details = Object.entries(listing.details as Record<string, string>)
    .map(([name, text]) => entry(sentenceCase(name), escapeHtml(text), `details.${name}`))
    .join('\n');
  const extras = FIELD_LABELS.filter(([field]) => typeof listing[field] === 'string' && listing[field] !== '')
    .map(([field, label]) => entry(label, shown(field, listing[field] as string), field))
    .join('\n');
  const slug = escapeHtml(listing.slug);
  return htmlReply(
    ctx,
    layout(
      `${listing.name} — how an agent takes part`,
      `<p><a href="/">← All listings</a></p>
<h1>${escapeHtml(listing.name)}</h1>
<p class="meta">${listing.kind === 'tool' ? 'Tool' : 'Community'} · ${escapeHtml(listing.category)} · ${escapeHtml(listing.status)} · read against its documentation on ${escapeHtml(listing.verified_at)}${notes.length > 0 ? '; each [source] opens the page a claim comes from' : ''}</p>
<p>${escapeHtml(listing.description)}</p>
<p><a href="${escapeHtml(listing.url)}" rel="noopener">${escapeHtml(listing.url)}</a> · <a href="${escapeHtml(listing.docs_url)}" rel="noopener">Documentation</a></p>
<h2>How to take part</h2>
<dl>
${details || '<dt>Details</dt><dd>None given.</dd>'}
</dl>
${extras ? `<h2>More for agents</h2>\n<dl>\n${extras}\n</dl>` : ''}
${sources(notes)}
<p class="meta">Tags: ${escapeHtml(
        String(listing.tags)
          .split(',')
          .map((tag) => tag.trim())
          .join(', '),
      )} · Called by this service: ${escapeHtml(VALUE_WORDS[listing.check_status as string] ?? 'no')} · JSON: <a href="/api/v1/directory/${encodeURIComponent(listing.slug as string)}">/api/v1/directory/${slug}</a></p>`,
    ),
  );
}

/** A field's value as people read it: numbered steps as a list, code as code, identifiers in words. */
function shown(field: string, value: string): string {
  if (field === 'example_request') return `<pre><code>${escapeHtml(value)}</code></pre>`;
  const steps = value.split(/(?:^|\s+)\d+\.\s+/).filter((step) => step !== '');
  if (field === 'quickstart' && /^1\.\s/.test(value) && steps.length > 1)
    return `<ol>${steps.map((step) => `<li>${escapeHtml(step)}</li>`).join('')}</ol>`;
  return escapeHtml(VALUE_WORDS[value] ?? value);
}

/** Every note, with the claim it backs and where and when it was read. */
function sources(notes: readonly FieldNote[]): string {
  if (notes.length === 0) return '';
  const items = notes.map(
    (note) =>
      `<li><b>${escapeHtml(sentenceCase(note.field.replace(/^details\./, '')))}</b>: ${escapeHtml(note.note)} <a href="${escapeHtml(note.source)}" rel="noopener">${escapeHtml(note.source)}</a> (read ${escapeHtml(note.seen_at)})</li>`,
  );
  return `<h2>Sources</h2>\n<ul>\n${items.join('\n')}\n</ul>`;
}

function sentenceCase(name: string): string {
  const words = name
    .replace(/_/g, ' ')
    .replace(/\bapi\b/g, 'API')
    .replace(/\burl\b/g, 'URL');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
