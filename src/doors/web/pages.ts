// The directory for people, rendered on the server as plain HTML. The pages run no script,
// so they say so: a Content-Security-Policy that allows only their own stylesheet. Every value
// that comes from a listing or a query is escaped.

import { createHash } from 'node:crypto';
import { etagOf } from '../../directory/snapshot.ts';
import { conditionalReply } from '../../http/conditional.ts';
import type { Reply } from '../../http/context.ts';
import type { RequestContext } from '../context.ts';
import { asRefusal } from '../../refusals/refusal.ts';
import { PAGE_TERMS } from '../../refusals/terms.ts';
import { BOUNDS } from '../../base/contract.ts';
import { kindOf, parseDirectoryQuery, type Query } from '../../rules/validate.ts';
import { limitSentences } from '../../guide/limit-sentences.ts';
import type { Listing } from '../../directory/listings.ts';
import { maxWaitSeconds } from '../../runtime/polls.ts';
import { mcpClientConfig } from '../../guide/contact.ts';

export type PageContext = RequestContext & { query: Query };

const HTML_TYPE = 'text/html; charset=utf-8';
const PAGE_SIZE = 20;
const STYLE = `
:root { color-scheme: light dark; --muted: #5b6470; --line: #d0d7de; --accent: #0b5cad; }
@media (prefers-color-scheme: dark) { :root { --muted: #9aa4af; --line: #3a424b; --accent: #6cb6ff; } }
* { box-sizing: border-box; } a { color: var(--accent); }
body {
  font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", sans-serif;
  margin: 0 auto; max-width: 50rem; padding: 1rem; overflow-wrap: anywhere;
}
a:focus, input:focus, select:focus, button:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
header p, .meta, .count, .source { color: var(--muted); }
.tabs { display: flex; gap: .5rem; list-style: none; padding: 0; margin: 1rem 0; flex-wrap: wrap; }
.tabs a {
  display: block; padding: .35rem .8rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none;
}
.tabs a[aria-current="page"] { background: var(--accent); color: Canvas; border-color: var(--accent); }
form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: 1rem 0; }
form div { display: flex; flex-direction: column; flex: 1 1 12rem; min-width: 0; }
input, select, button {
  font: inherit; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: .4rem; max-width: 100%;
}
.listings { list-style: none; padding: 0; }
.listings li { border-top: 1px solid var(--line); padding: .8rem 0; }
.listings h2 { font-size: 1.1rem; margin: 0; }
.meta, .source { font-size: .9rem; margin: .1rem 0 .3rem; }
.pages { display: flex; justify-content: space-between; gap: 1rem; margin: 1rem 0; }
dt { font-weight: 600; margin-top: .6rem; }
dd { margin: 0 0 0 1rem; white-space: pre-line; }
dd ol { white-space: normal; padding-left: 1.2rem; margin: 0; }
pre { overflow-x: auto; padding: .7rem; border: 1px solid var(--line); border-radius: .4rem; white-space: pre-wrap; }
footer { border-top: 1px solid var(--line); margin-top: 2rem; color: var(--muted); font-size: .9rem; }
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
/** Pages load nothing from elsewhere and run no script; nothing may frame them or learn where a click came from. */
const PAGE_HEADERS = {
  'content-security-policy':
    `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'self'; ` +
    "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

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
      const body = layout(
        `Error ${refusal.status}`,
        `<h1>${refusal.status === 404 ? 'Not found' : 'That did not work'}</h1>
<p>${escapeHtml(refusal.messageIn(PAGE_TERMS).replace(/`/g, ''))}</p>
<p><a href="/">Back to the directory</a></p>`,
      );
      return { status: refusal.status, body, headers: { ...refusal.headers, ...PAGE_HEADERS }, contentType: HTML_TYPE };
    }
  };
}

export function layout(title: string, main: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="service-desc" type="application/json" href="/api/v1/openapi.json">
<link rel="alternate" type="text/plain" href="/llms.txt" title="Guide for AI agents">
<style>${STYLE}</style></head>
<body><main>
${main}
</main>
<footer><p>Machine-readable: <a href="/api/v1/openapi.json">OpenAPI</a> · <a href="/llms.txt">llms.txt</a> ·
<a href="/api/v1/contact-info">contact-info</a> · MCP: <code>/mcp</code> ·
A2A: <a href="/.well-known/agent-card.json">agent card</a></p></footer>
</body></html>
`;
}

/** A page with its ETag and the pages' own headers. */
export function htmlReply(ctx: RequestContext, html: string): Reply {
  const bytes = Buffer.from(html);
  const reply = conditionalReply(ctx.req, { bytes, etag: etagOf(bytes) }, HTML_TYPE);
  return { ...reply, headers: { ...reply.headers, ...PAGE_HEADERS } };
}

function pageUrl(params: Record<string, string | number>): string {
  const query = Object.entries(params)
    .filter(([, value]) => value !== '' && value !== 0)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  return query.length > 0 ? `/?${query.join('&')}` : '/';
}

/** GET / : the directory, with search, category filter, kind tabs and pages. */
export function homePage(ctx: PageContext): Reply {
  const kindParam = ctx.query.get('kind') ?? '';
  const kind = kindOf(kindParam || undefined); // the form's "All" sends kind=
  const { q, category, offset } = parseDirectoryQuery(ctx.query, kind);
  const { items, total, next_offset } = ctx.app.directory.page({ kind, q, category, limit: PAGE_SIZE, offset });
  const categories = ctx.app.directory.categories(kind);
  const keep = { kind: kindParam, q, category };

  const tab = (label: string, value: string) =>
    `<li><a href="${escapeHtml(pageUrl({ kind: value }))}"${value === kindParam ? ' aria-current="page"' : ''}>` +
    `${label}</a></li>`;
  const options = categories
    .map(
      ({ name }) =>
        `<option${name.toLowerCase() === category.toLowerCase() ? ' selected' : ''}>${escapeHtml(name)}</option>`,
    )
    .join('');
  const list = listingItems(items);
  const existing = categories
    .map(
      ({ name, count }) =>
        `<a href="${escapeHtml(pageUrl({ kind: kindParam, category: name }))}">${escapeHtml(name)}</a> (${count})`,
    )
    .join(', ');
  const shown =
    total > 0
      ? `Listings ${Math.min(offset + 1, total)}–${Math.min(offset + PAGE_SIZE, total)} of ${total}.`
      : `No listings match. The categories are: ${existing}.`;

  return htmlReply(
    ctx,
    layout(
      'Directory of communities and tools for AI agents',
      `<header>
<h1>Communities and tools for AI agents</h1>
<p>Each listing says how an agent can take part, read against the service's own documentation, with its sources.</p>
<p>Agents can also write to the human who runs this site: open a private conversation through the API, \
the MCP endpoint or A2A, as <a href="#contact">How to contact the owner</a> shows.</p>
</header>
<nav aria-label="Kind"><ul class="tabs">\
${tab('All', '')}${tab('Communities', 'community')}${tab('Tools', 'tool')}</ul></nav>
<form method="get" action="/" role="search">
${kindParam ? `<input type="hidden" name="kind" value="${escapeHtml(kindParam)}">` : ''}
<div><label for="q">Search</label>\
<input id="q" name="q" type="search" maxlength="${BOUNDS.qMaxChars}" value="${escapeHtml(q)}"></div>
<div><label for="category">Category</label>\
<select id="category" name="category"><option value="">All categories</option>${options}</select></div>
<button type="submit">Search</button>
</form>
<p class="count" role="status">${shown}</p>
<ol class="listings">
${list}
</ol>
${pager(keep, offset, next_offset)}
${contactSection(ctx)}`,
    ),
  );
}

/** The listings of a page, each a short article linking to its own page. */
function listingItems(items: readonly Listing[]): string {
  return items
    .map(
      (listing) => `<li><article>
<h2><a href="/listings/${encodeURIComponent(listing.slug as string)}">${escapeHtml(listing.name)}</a></h2>
<p class="meta">${listing.kind === 'tool' ? 'Tool' : 'Community'} · ${escapeHtml(listing.category)} · \
${escapeHtml(listing.status)}</p>
<p>${escapeHtml(listing.description)}</p>
</article></li>`,
    )
    .join('\n');
}

/** Previous and next links, keeping the search, filter and kind. */
function pager(keep: Record<string, string>, offset: number, nextOffset: number | null): string {
  const previous =
    offset > 0
      ? `<a href="${escapeHtml(pageUrl({ ...keep, offset: Math.max(0, offset - PAGE_SIZE) }))}" rel="prev">` +
        '← Previous</a>'
      : '<span></span>';
  const next =
    nextOffset !== null
      ? `<a href="${escapeHtml(pageUrl({ ...keep, offset: nextOffset }))}" rel="next">Next →</a>`
      : '<span></span>';
  return `<nav class="pages" aria-label="Pages">${previous}${next}</nav>`;
}

function contactSection({ app }: RequestContext): string {
  const { config } = app;
  const base = `${config.publicBaseUrl}/api/v1`;
  const mcp = mcpClientConfig(config);
  const limits = limitSentences(config, app.quotas);
  const wait = maxWaitSeconds(config.pollIntervalSeconds);
  const curl = `# 1. Open a conversation (a new random Idempotency-Key for each new message)
curl -X POST ${base}/conversations \\
  -H 'Content-Type: application/json' -H "Idempotency-Key: $(uuidgen)" \\
  -d '{"message": "Hello!", "metadata": {"agent_name": "my-agent"}}'
# → {"id": "…", "access_token": "…", …}  Store both now: the token is shown once.

# 2. Wait for a reply: held until the owner writes, or ${wait} s; then ask again
curl "${base}/conversations/ID/updates?after=1&wait=${wait}" \\
  -H 'Authorization: Bearer TOKEN'
#    or be told: PUT ${base}/conversations/ID/webhook {"url": "https://…"} (signed, Standard Webhooks)

# 3. Read new messages
curl "${base}/conversations/ID/messages?after=1" -H 'Authorization: Bearer TOKEN'`;
  return `<section id="contact" aria-labelledby="contact-title">
<h2 id="contact-title">How to contact the owner</h2>
<p>A human runs this service and answers every message by hand. Conversations are private: \
only you and the owner read them.</p>
<pre><code>${escapeHtml(curl)}</code></pre>
<p>From an MCP client, add <code>${escapeHtml(mcp.endpoint)}</code>, for example with \
<code>${escapeHtml(mcp.claude_code)}</code>, and use its tools open_conversation, send_message, check_updates and \
read_messages. An A2A client finds this service \
from its agent card, <a href="/.well-known/agent-card.json">/.well-known/agent-card.json</a>.</p>
<p>Limits: messages of 1 to ${BOUNDS.messageMaxChars} characters. ${escapeHtml(limits.daily)} \
${escapeHtml(limits.shares)}</p>
<p>Details: <a href="/llms.txt">llms.txt</a>, <a href="/api/v1/openapi.json">OpenAPI</a>, \
<a href="/api/v1/contact-info">contact-info</a>.</p>
</section>`;
}
