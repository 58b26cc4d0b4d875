// The directory for people, rendered on the server as plain HTML (no JavaScript), and
// /llms.txt for agents. Every value that comes from a listing or a query is escaped.

import type { Config } from '../config.ts';
import { etagOf } from '../directory.ts';
import { conditionalReply, type Reply, type RestContext } from '../http.ts';
import { asRefusal, refuse, REST_TERMS } from '../refusals.ts';
import { LIMITS, parseDirectoryQuery, type Kind, type Query } from '../validate.ts';

type PageContext = RestContext & { query: Query };

const HTML_TYPE = 'text/html; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const PAGE_SIZE = 20;

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Guard for page routes: a refusal becomes a small HTML page with the same status. */
export function htmlPage(handler: (ctx: PageContext) => Reply) {
  return (ctx: PageContext): Reply => {
    try {
      return handler(ctx);
    } catch (err) {
      const { refusal, expected } = asRefusal(err);
      if (!expected) throw err;
      const body = layout(`Error ${refusal.status}`, `<h1>${refusal.status === 404 ? 'Not found' : 'That did not work'}</h1>
<p>${escapeHtml(refusal.messageIn(REST_TERMS).replace(/`/g, ''))}</p>
<p><a href="/">Back to the directory</a></p>`);
      return { status: refusal.status, body, headers: refusal.headers, contentType: HTML_TYPE };
    }
  };
}

function layout(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="service-desc" type="application/json" href="/api/v1/openapi.json">
<link rel="alternate" type="text/plain" href="/llms.txt" title="Guide for AI agents">
<style>
:root { color-scheme: light dark; --muted: #5b6470; --line: #d0d7de; --accent: #0b5cad; }
@media (prefers-color-scheme: dark) { :root { --muted: #9aa4af; --line: #3a424b; --accent: #6cb6ff; } }
* { box-sizing: border-box; }
body { font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 50rem; padding: 1rem; }
a { color: var(--accent); }
a:focus, input:focus, select:focus, button:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
header p, .meta, .count { color: var(--muted); }
.tabs { display: flex; gap: .5rem; list-style: none; padding: 0; margin: 1rem 0; flex-wrap: wrap; }
.tabs a { display: block; padding: .35rem .8rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; }
.tabs a[aria-current="page"] { background: var(--accent); color: Canvas; border-color: var(--accent); }
form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: 1rem 0; }
form div { display: flex; flex-direction: column; flex: 1 1 12rem; }
input, select, button { font: inherit; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: .4rem; }
button { cursor: pointer; }
.listings { list-style: none; padding: 0; }
.listings li { border-top: 1px solid var(--line); padding: .8rem 0; }
.listings h2 { font-size: 1.1rem; margin: 0; }
.meta { font-size: .9rem; margin: .1rem 0 .3rem; }
.pages { display: flex; justify-content: space-between; gap: 1rem; margin: 1rem 0; }
dt { font-weight: 600; margin-top: .6rem; }
dd { margin: 0 0 0 1rem; white-space: pre-line; }
pre { overflow-x: auto; padding: .7rem; border: 1px solid var(--line); border-radius: .4rem; white-space: pre-wrap; word-break: break-word; }
footer { border-top: 1px solid var(--line); margin-top: 2rem; color: var(--muted); font-size: .9rem; }
</style>
</head>
<body>
<main>
${main}
</main>
<footer><p>Machine-readable: <a href="/api/v1/openapi.json">OpenAPI</a> · <a href="/llms.txt">llms.txt</a> · <a href="/api/v1/contact-info">contact-info</a></p></footer>
</body>
</html>
`;
}

function htmlReply(ctx: RestContext, html: string): Reply {
  const bytes = Buffer.from(html);
  return conditionalReply(ctx.req, { bytes, etag: etagOf(bytes) }, HTML_TYPE);
}

function pageUrl(params: Record<string, string | number>): string {
  const query = Object.entries(params)
    .filter(([, value]) => value !== '' && value !== 0)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return query ? `/?${query}` : '/';
}

/** GET / : the directory, with search, category filter, kind tabs and pages. */
export function homePage(ctx: PageContext): Reply {
  const kindParam = ctx.query.get('kind') ?? '';
  if (kindParam !== '' && kindParam !== 'community' && kindParam !== 'tool') throw refuse('badKind');
  const kind = (kindParam || null) as Kind | null;
  const { q, category, offset } = parseDirectoryQuery(ctx.query, kind);
  const { items, total } = ctx.app.directory.page({ kind, q, category, limit: PAGE_SIZE, offset });
  const categories = ctx.app.directory.categories(kind);

  const tab = (label: string, value: string) =>
    `<li><a href="${escapeHtml(pageUrl({ kind: value }))}"${value === kindParam ? ' aria-current="page"' : ''}>${label}</a></li>`;
  const options = ['<option value="">All categories</option>']
    .concat(categories.map(({ name }) => `<option${name.toLowerCase() === category.toLowerCase() ? ' selected' : ''}>${escapeHtml(name)}</option>`))
    .join('');
  const list = items
    .map(
      (listing) => `<li><article>
<h2><a href="/listings/${encodeURIComponent(listing.slug as string)}">${escapeHtml(listing.name)}</a></h2>
<p class="meta">${listing.kind === 'tool' ? 'Tool' : 'Community'} · ${escapeHtml(listing.category)} · ${escapeHtml(listing.status)}</p>
<p>${escapeHtml(listing.description)}</p>
</article></li>`,
    )
    .join('\n');
  const keep = { kind: kindParam, q, category };
  const previous = offset > 0 ? `<a href="${escapeHtml(pageUrl({ ...keep, offset: Math.max(0, offset - PAGE_SIZE) }))}" rel="prev">← Previous</a>` : '<span></span>';
  const next = offset + PAGE_SIZE < total ? `<a href="${escapeHtml(pageUrl({ ...keep, offset: offset + PAGE_SIZE }))}" rel="next">Next →</a>` : '<span></span>';
  const shown = total === 0 ? 'No listings match.' : `Listings ${Math.min(offset + 1, total)}–${Math.min(offset + PAGE_SIZE, total)} of ${total}.`;

  return htmlReply(ctx, layout('Directory of communities and tools for AI agents', `<header>
<h1>Communities and tools for AI agents</h1>
<p>Each listing says how an agent can take part. Written from public documentation; check a listing's own docs before relying on it.</p>
</header>
<nav aria-label="Kind"><ul class="tabs">${tab('All', '')}${tab('Communities', 'community')}${tab('Tools', 'tool')}</ul></nav>
<form method="get" action="/" role="search">
${kindParam ? `<input type="hidden" name="kind" value="${escapeHtml(kindParam)}">` : ''}
<div><label for="q">Search</label><input id="q" name="q" type="search" maxlength="${LIMITS.qMaxChars}" value="${escapeHtml(q)}"></div>
<div><label for="category">Category</label><select id="category" name="category">${options}</select></div>
<button type="submit">Search</button>
</form>
<p class="count" role="status">${shown}</p>
<ol class="listings">
${list}
</ol>
<nav class="pages" aria-label="Pages">${previous}${next}</nav>
${contactSection(ctx.app.config)}`));
}

function contactSection(config: Config & { publicBaseUrl: string }): string {
  const base = `${config.publicBaseUrl}/api/v1`;
  const curl = `# 1. Open a conversation (use a new Idempotency-Key for each new message)
curl -X POST ${base}/conversations \\
  -H 'Content-Type: application/json' -H 'Idempotency-Key: my-first-key-001' \\
  -d '{"message": "Hello!", "metadata": {"agent_name": "my-agent"}}'
# → {"id": "…", "access_token": "…", …}  Store both now: the token is shown once.

# 2. Poll for a reply, at most once every ${config.pollIntervalSeconds} seconds
curl ${base}/conversations/ID/updates?after=1 -H 'Authorization: Bearer TOKEN'

# 3. Read new messages
curl ${base}/conversations/ID/messages?after=1 -H 'Authorization: Bearer TOKEN'`;
  return `<section id="contact" aria-labelledby="contact-title">
<h2 id="contact-title">How to contact the owner</h2>
<p>A human runs this service and answers every message by hand. Conversations are private: only you and the owner read them.</p>
<pre><code>${escapeHtml(curl)}</code></pre>
<p>Limits: messages of 1 to ${LIMITS.messageMaxChars} characters; ${config.dailyMessageLimit || 'no'} messages per day for everyone together. Details: <a href="/llms.txt">llms.txt</a>, <a href="/api/v1/openapi.json">OpenAPI</a>, <a href="/api/v1/contact-info">contact-info</a>.</p>
</section>`;
}

const EXTRA_FIELDS: [string, string][] = [
  ['quickstart', 'Quick start'],
  ['example_request', 'Example request'],
  ['auth_type', 'Authentication'],
  ['auth_note', 'About authentication'],
  ['rate_limits', 'Rate limits'],
  ['writes', 'Writes'],
  ['writes_note', 'About writes'],
  ['gotchas', 'Gotchas'],
  ['entry_url', 'Entry point'],
  ['entry_type', 'Entry point type'],
  ['check_status', 'Checked by this service'],
];

/** GET /listings/{slug} : one listing with its participation instructions. */
export function listingPage(ctx: PageContext): Reply {
  const listing = ctx.app.directory.listing(ctx.params.slug as string);
  if (!listing) throw refuse('noListing');
  const details = Object.entries(listing.details as Record<string, string>)
    .map(([name, text]) => `<dt>${escapeHtml(sentenceCase(name))}</dt><dd>${escapeHtml(text)}</dd>`)
    .join('\n');
  const extras = EXTRA_FIELDS.filter(([field]) => typeof listing[field] === 'string' && listing[field] !== '')
    .map(([field, label]) =>
      field === 'example_request'
        ? `<dt>${label}</dt><dd><pre><code>${escapeHtml(listing[field])}</code></pre></dd>`
        : `<dt>${label}</dt><dd>${escapeHtml(listing[field])}</dd>`,
    )
    .join('\n');
  return htmlReply(ctx, layout(`${listing.name} — how an agent takes part`, `<p><a href="/">← All listings</a></p>
<h1>${escapeHtml(listing.name)}</h1>
<p class="meta">${listing.kind === 'tool' ? 'Tool' : 'Community'} · ${escapeHtml(listing.category)} · ${escapeHtml(listing.status)} · described as of ${escapeHtml(listing.verified_at)}</p>
<p>${escapeHtml(listing.description)}</p>
<p><a href="${escapeHtml(listing.url)}" rel="noopener">${escapeHtml(listing.url)}</a> · <a href="${escapeHtml(listing.docs_url)}" rel="noopener">Documentation</a></p>
<h2>How to take part</h2>
<dl>
${details || '<dt>Details</dt><dd>None given.</dd>'}
</dl>
${extras ? `<h2>More for agents</h2>\n<dl>\n${extras}\n</dl>` : ''}
<p class="meta">Tags: ${escapeHtml(listing.tags)} · JSON: <a href="/api/v1/directory/${encodeURIComponent(listing.slug as string)}">/api/v1/directory/${escapeHtml(listing.slug)}</a></p>`));
}

function sentenceCase(name: string): string {
  const words = name.replace(/_/g, ' ').replace(/\bapi\b/g, 'API');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** GET /llms.txt : how an agent reads the directory and contacts the owner, in plain text. */
export function llmsTxt(ctx: RestContext): Reply {
  const config = ctx.app.config;
  const base = `${config.publicBaseUrl}/api/v1`;
  const text = `# Agent contact service

> A directory of communities and tools that AI agents can use, each with instructions for taking part, and a private, asynchronous line to the one human who runs this service. Every reply is written by that human; no language model answers.

## Read the directory (no credential)

- GET ${base}/directory?q=&category=&limit=${LIMITS.directoryLimitDefault}&offset=0 returns {items, total, limit, offset, next_offset}. q: case-insensitive substring (at most ${LIMITS.qMaxChars} characters); category: exact, case-insensitive; limit 1-${LIMITS.directoryLimitMax}; offset 0-${LIMITS.directoryOffsetMax}. Follow next_offset until it is null.
- GET ${base}/communities and GET ${base}/tools: the same, one kind only.
- GET ${base}/directory/{slug}: one listing. Its "details" object says how to read, post, register and authenticate there.

## Contact the owner

1. POST ${base}/conversations with headers Content-Type: application/json and Idempotency-Key: <new unique key, 8-128 of A-Z a-z 0-9 _ . : ->, body {"message": "...", "metadata": {"agent_name": "...", "model": "...", "framework": "..."}} (metadata optional, unverified).
2. The 201 answer holds id and access_token. Store both at once: the token is shown only in that answer and cannot be issued again. A retry of the same opening gets 409 without it.
3. Follow up: POST ${base}/conversations/{id}/messages with Authorization: Bearer <access_token>, a new Idempotency-Key and {"message": "..."}. After a network failure, retry with the same key and body: 200 with "duplicate": true means it was already stored.
4. Poll: GET ${base}/conversations/{id}/updates?after=<last seq you read>, at most once every ${config.pollIntervalSeconds} seconds (poll_after_seconds). new_reply is true when the owner wrote after that seq.
5. Read: GET ${base}/conversations/{id}/messages?after=<last seq you read>&limit=${LIMITS.historyLimitDefault} returns {items, has_more, next_after}; each message is {seq, author: client|owner, message, created_at}.

## Limits

- Message: 1-${LIMITS.messageMaxChars} characters; JSON body at most ${LIMITS.bodyBytes} bytes; metadata values at most ${LIMITS.metadataValueMaxChars} characters.
- Shared daily maximum: ${config.dailyMessageLimit || 'unlimited'} messages per UTC day for everyone together (openings, follow-ups, owner replies); resets at 00:00 UTC.
- Openings: ${config.createLimitPerHour || 'unlimited'} per address per hour. Requests: ${config.requestLimitPerMinute || 'unlimited'} per address per minute.
- The credential expires ${LIMITS.credentialLifetimeDays} days after issue. Send it only in the Authorization header, never in a URL.
- Every refusal is {"error": {"code", "message"}}; every 429 carries Retry-After in seconds.

## Privacy

Messages are read only by the owner, stored on the owner's machine, never published or used for training. The access token is stored only as a SHA-256 hash.

## More

- [OpenAPI 3.1](${base}/openapi.json)
- [Contact protocol and limits as JSON](${base}/contact-info)
- [The directory for people](${config.publicBaseUrl}/)
`;
  return { status: 200, body: text, contentType: TEXT_TYPE };
}
