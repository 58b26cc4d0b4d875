// The web pages: the directory and one listing as HTML, escaped, searchable, with their own error pages.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FIXTURE_LISTINGS, request, startTestService, upsertListingsAsOwner } from '../../helpers.ts';

const fixture = JSON.parse(readFileSync(FIXTURE_LISTINGS, 'utf8')) as Record<string, unknown>[];
const titles = (html: string) => [...html.matchAll(/<h2><a href="\/listings\/([^"]+)">/g)].map((m) => m[1]);

test('the home page lists the directory as HTML with tabs, search, categories and the contact section', async (t) => {
  const service = await startTestService(t);
  const page = await request(service.url, 'GET', '/');
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(page.text, /^<!doctype html>\n<html lang="en">/);
  assert.match(page.text, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  assert.ok(!/<script/i.test(page.text), 'no JavaScript');
  assert.equal(titles(page.text).length, 12);
  assert.match(page.text, /<a href="\/" aria-current="page">All<\/a>/);
  assert.match(
    page.text,
    /<label for="q">Search<\/label><input id="q" name="q" type="search" maxlength="120" value="">/,
  );
  assert.match(page.text, /<option>Forums<\/option>/);
  assert.match(page.text, /<h2 id="contact-title">How to contact the owner<\/h2>/);
  assert.match(page.text, new RegExp(`curl -X POST ${service.url}/api/v1/conversations`));
  assert.match(page.text, /href="\/llms\.txt"/);
  assert.match(page.text, /href="\/api\/v1\/openapi\.json"/);
});

test('search, category, kind and pagination narrow the page like the API', async (t) => {
  const service = await startTestService(t);
  const slugs = async (query: string) => titles((await request(service.url, 'GET', `/?${query}`)).text);
  assert.deepEqual(await slugs('q=weather'), ['gamma-weather']);
  assert.deepEqual(await slugs('category=social'), ['beta-chat', 'delta-social']);
  assert.deepEqual(await slugs('kind=community'), ['beta-chat', 'delta-social', 'zeta-forum']);
  assert.deepEqual(await slugs('kind=tool&q=filler'), ['filler-1', 'filler-2', 'filler-3', 'filler-4']);
  const community = await request(service.url, 'GET', '/?kind=community');
  assert.match(community.text, /<a href="\/\?kind=community" aria-current="page">Communities<\/a>/);
  assert.match(community.text, /<input type="hidden" name="kind" value="community">/);
  const selected = await request(service.url, 'GET', '/?category=FORUMS');
  assert.match(selected.text, /<option selected>Forums<\/option>/);

  const many = Array.from({ length: 25 }, (_, i) => ({
    ...fixture[0],
    slug: `many-${String(i).padStart(2, '0')}`,
    name: `Many ${String(i).padStart(2, '0')}`,
    category: 'many',
  }));
  upsertListingsAsOwner(service.dbPath, many);
  const first = await request(service.url, 'GET', '/?category=many');
  assert.equal(titles(first.text).length, 20);
  assert.match(first.text, /Listings 1–20 of 25\./);
  assert.match(first.text, /<a href="\/\?category=many&#38;offset=20" rel="next">Next →<\/a>/);
  const second = await request(service.url, 'GET', '/?category=many&offset=20');
  assert.deepEqual(titles(second.text), ['many-20', 'many-21', 'many-22', 'many-23', 'many-24']);
  assert.match(second.text, /<a href="\/\?category=many" rel="prev">← Previous<\/a>/);
  assert.ok(!second.text.includes('rel="next"'));
});

test('every value from listings and queries is escaped', async (t) => {
  const service = await startTestService(t);
  const hostile = {
    ...fixture[0],
    slug: 'hostile',
    name: '<script>alert(1)</script>',
    description: '"><img src=x onerror=alert(2)>',
    category: "a'b&c",
    tags: '<b>',
    details: { purpose: '</dd><script>x</script>' },
  };
  upsertListingsAsOwner(service.dbPath, [hostile]);
  const home = await request(service.url, 'GET', `/?q=${encodeURIComponent('"><script>')}`);
  assert.ok(!home.text.includes('"><script>'));
  assert.match(home.text, /value="&#34;&#62;&#60;script&#62;"/);
  const all = await request(service.url, 'GET', '/?q=alert');
  assert.ok(!/<script>alert|<img src=x/.test(all.text));
  assert.match(all.text, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
  const one = await request(service.url, 'GET', '/listings/hostile');
  assert.ok(!/<script>|<img src=x|<b>/.test(one.text));
  assert.match(one.text, /<option selected>|a&#39;b&#38;c/);
});

test('a listing page shows the participation instructions and the extra fields', async (t) => {
  const service = await startTestService(t);
  const page = await request(service.url, 'GET', '/listings/alpha-api');
  assert.equal(page.status, 200);
  assert.match(page.text, /<h1>alpha API<\/h1>/);
  assert.match(page.text, /<h2>How to take part<\/h2>/);
  assert.match(page.text, /<dt>Purpose<\/dt><dd>Purpose of alpha API\.<\/dd>/);
  assert.match(
    page.text,
    /<dt>Quick start<\/dt><dd><ol><li>Call it\.<\/li><li>Read it\.<\/li><\/ol><\/dd>/,
    'numbered steps as a list',
  );
  assert.match(
    page.text,
    /<dt>Example request<\/dt><dd><pre><code>GET https:\/\/alpha-api\.example\.org\/v1\/x<\/code><\/pre><\/dd>/,
  );
  assert.match(page.text, /href="\/api\/v1\/directory\/alpha-api"/);
});

test('page errors are HTML pages with the right status', async (t) => {
  const service = await startTestService(t);
  const missing = await request(service.url, 'GET', '/listings/no-such-listing');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(missing.text, /<title>Error 404<\/title>/);
  assert.match(missing.text, /No listing has this slug\. The directory on the home page lists every slug\./);
  assert.ok(!missing.text.includes('GET /api'), 'a person is not told to call the API');
  const badKind = await request(service.url, 'GET', '/?kind=robots');
  assert.equal(badKind.status, 400);
  assert.match(badKind.text, /kind must be community or tool/);
  const badOffset = await request(service.url, 'GET', '/?offset=-1');
  assert.equal(badOffset.status, 400);
});

test('public answers carry ETag and Cache-Control, and If-None-Match gets 304 until the listings change', async (t) => {
  const service = await startTestService(t);
  for (const path of [
    '/api/v1/directory?limit=5',
    '/api/v1/tools',
    '/api/v1/directory/alpha-api',
    '/',
    '/listings/alpha-api',
  ]) {
    const first = await request(service.url, 'GET', path);
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^"[\w-]{27}"$/, path);
    assert.equal(first.headers.get('cache-control'), 'public, no-cache', path);
    for (const ifNoneMatch of [etag as string, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await request(service.url, 'GET', path, { headers: { 'if-none-match': ifNoneMatch } });
      assert.equal(again.status, 304, `${path} with ${ifNoneMatch}`);
      assert.equal(again.text, '');
      assert.equal(again.headers.get('etag'), etag);
    }
    const stale = await request(service.url, 'GET', path, { headers: { 'if-none-match': '"stale"' } });
    assert.equal(stale.status, 200, path);
  }
  const before = (await request(service.url, 'GET', '/api/v1/directory/alpha-api')).headers.get('etag');
  upsertListingsAsOwner(service.dbPath, [
    { ...fixture.find((item) => item.slug === 'alpha-api'), description: 'Changed.' },
  ]);
  const after = await request(service.url, 'GET', '/api/v1/directory/alpha-api', {
    headers: { 'if-none-match': before as string },
  });
  assert.equal(after.status, 200, 'a changed listing is sent again');
  assert.equal(after.body.description, 'Changed.');
  assert.notEqual(after.headers.get('etag'), before);
  const conversation = await request(service.url, 'POST', '/api/v1/conversations', {
    key: 'etag-test-key-1',
    json: { message: 'hi' },
  });
  assert.equal(conversation.headers.get('etag'), null, 'private answers are never cached');
  assert.equal(conversation.headers.get('cache-control'), 'no-store');
});

test("a listing page shows values as people read them, and fits a phone's width however long its values", async (t) => {
  const service = await startTestService(t);
  const long = `https://example.org/${'a-very-long-path-segment/'.repeat(12)}`;
  upsertListingsAsOwner(service.dbPath, [
    {
      ...fixture[0],
      slug: 'worded',
      tags: 'weather,forecast,no key',
      writes: 'read_only',
      auth_type: 'api_key',
      entry_url: long,
      details: { authentication: 'Send the key in a header.' },
    },
  ]);
  const page = (await request(service.url, 'GET', '/listings/worded')).text;
  assert.match(page, /Tags: weather, forecast, no key/);
  assert.match(page, /<dt>Writes<\/dt><dd>Read only<\/dd>/);
  assert.match(page, /<dt>Authentication type<\/dt><dd>API key<\/dd>/);
  assert.equal(page.match(/<dt>Authentication<\/dt>/g)?.length, 1, 'one "Authentication", the detail');
  assert.match(page, /body \{[^}]*overflow-wrap: anywhere/, 'long values wrap instead of scrolling sideways');
});

test('a listing page says when it was read against its docs and links each noted claim to its source', async (t) => {
  const service = await startTestService(t);
  const notes = [
    {
      field: 'details.registration',
      source: 'https://docs.example.org/register',
      note: 'Registration is open to anyone.',
      seen_at: '2026-11-20',
    },
    {
      field: 'rate_limits',
      source: 'https://docs.example.org/limits',
      note: '60 requests a minute.',
      seen_at: '2026-11-21',
    },
  ];
  upsertListingsAsOwner(service.dbPath, [
    {
      ...fixture[0],
      slug: 'sourced',
      verified_at: '2026-11-21',
      rate_limits: '60 a minute',
      details: { registration: 'Open.' },
      field_notes: notes,
    },
  ]);
  const page = (await request(service.url, 'GET', '/listings/sourced')).text;
  assert.match(page, /read against its documentation on 2026-11-21/);
  assert.match(
    page,
    new RegExp(
      '<dt>Registration</dt><dd>Open\\. <a class="source" href="https://docs\\.example\\.org/register" ' +
        'rel="noopener" title="Registration is open to anyone\\.">\\[source\\]</a></dd>',
    ),
  );
  assert.match(
    page,
    /<dt>Rate limits<\/dt><dd>60 a minute <a class="source" href="https:\/\/docs\.example\.org\/limits"/,
  );
  assert.match(
    page,
    new RegExp(
      '<h2>Sources</h2>[\\s\\S]*<b>Registration</b>: Registration is open to anyone\\. ' +
        '<a href="https://docs\\.example\\.org/register" rel="noopener">[^<]+</a> \\(read 2026-11-20\\)',
    ),
  );
});

test('pages run no script and say so: a strict Content-Security-Policy, no referrer, no framing', async (t) => {
  const service = await startTestService(t);
  for (const path of ['/', '/listings/alpha-api', '/listings/no-such', '/?kind=robots']) {
    const page = await request(service.url, 'GET', path);
    const policy = page.headers.get('content-security-policy') ?? '';
    assert.match(
      policy,
      new RegExp(
        "^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; " +
          "form-action 'self'; frame-ancestors 'none'$",
      ),
      path,
    );
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer', path);
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)?.[1] ?? '';
    assert.ok(
      policy.includes(createHash('sha256').update(style).digest('base64')),
      `${path}: the policy allows exactly the page's stylesheet`,
    );
  }
});

test('the home page says near the top how agents reach the owner; an empty filter names the categories', async (t) => {
  const service = await startTestService(t);
  const home = (await request(service.url, 'GET', '/')).text;
  assert.ok(home.indexOf('href="#contact"') < home.indexOf('<ol class="listings">'), 'before the listings');
  assert.match(
    home,
    /write to the human who runs this site: open a private conversation through the API, the MCP endpoint or A2A/,
  );
  const none = (await request(service.url, 'GET', '/?category=robots')).text;
  assert.match(none, /No listings match\. The categories are: .*<a href="\/\?category=Forums">Forums<\/a> \(1\)/);
});
