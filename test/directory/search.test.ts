// Search as models write it: `q` holds words, each a case-insensitive part of a listing; and an
// answer that finds nothing names the categories there are, through REST and the MCP tool alike.
// (Beside directory.test.ts, which holds the directory's other rules, to keep each file short.)

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FIXTURE_LISTINGS, request, ROOT, startTestService, type TestService } from '../helpers.ts';
import { validate } from '../json-schema.ts';

const fixture = JSON.parse(readFileSync(FIXTURE_LISTINGS, 'utf8')) as Record<string, string>[];
const slugs = (body: { items: { slug: string }[] }) => body.items.map((item) => item.slug);
const PAGE_FIELDS = ['items', 'total', 'limit', 'offset', 'next_offset'];
const SEARCHED = ['name', 'slug', 'description', 'category', 'tags'];
/** The categories of the fixture, as Directory.categories() spells and counts them. */
const CATEGORIES = {
  all: [
    { name: 'data', count: 1 },
    { name: 'filler', count: 4 },
    { name: 'Forums', count: 1 },
    { name: 'knowledge', count: 2 },
    { name: 'maps', count: 1 },
    { name: 'social', count: 2 },
    { name: 'weather', count: 1 },
  ],
  community: [
    { name: 'Forums', count: 1 },
    { name: 'social', count: 2 },
  ],
  tool: [
    { name: 'data', count: 1 },
    { name: 'filler', count: 4 },
    { name: 'knowledge', count: 2 },
    { name: 'maps', count: 1 },
    { name: 'weather', count: 1 },
  ],
};

const search = async (service: TestService, query: string, route = '/api/v1/directory') =>
  (await request(service.url, 'GET', `${route}?${query}`)).body;

/** Calls /mcp as any MCP client would, and returns the JSON-RPC result. */
async function mcp(service: TestService, method: string, params: object) {
  const response = await request(service.url, 'POST', '/mcp', {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  assert.equal(response.status, 200, response.text);
  return response.body.result;
}

test('q holds words: a listing matches when each is in its name, slug, description, category or tags', async (t) => {
  const service = await startTestService(t);
  const cases: [string, string[]][] = [
    ['alpha api', ['alpha-api']], // both in the name
    ['API\tALPHA', ['alpha-api']], // in any order, case and white space
    ['alpha pages', ['alpha-archive']], // name and description
    ['straße GERMANY', ['eszett-tool']], // name and description, folded Unicode-aware
    ['cotton textiles', ['zeta-forum']], // description and tags
    ['forums 100% n_w', ['zeta-forum']], // category, and `%` and `_` literal
    ['filler number', ['filler-1', 'filler-2', 'filler-3', 'filler-4']], // sorted by name, then slug
    ['weather api', []], // each word finds a listing, but no listing holds both
  ];
  for (const [q, expected] of cases) {
    const body = await search(service, `q=${encodeURIComponent(q)}`);
    assert.deepEqual(slugs(body), expected, `q=${q}`);
    assert.equal(body.total, expected.length, `q=${q}`);
  }
  const form = await search(service, 'q=filler+number&limit=3');
  assert.deepEqual([slugs(form), form.total, form.next_offset], [['filler-1', 'filler-2', 'filler-3'], 4, 3]);
  const onlySpaces = await search(service, 'q=%20%20');
  assert.equal(onlySpaces.total, fixture.length, 'a q of white space alone holds no words: no filter');
  const page = await request(service.url, 'GET', '/?q=alpha+api');
  const listed = [...page.text.matchAll(/<h2><a href="\/listings\/([^"]+)">/g)].map((m) => m[1]);
  assert.deepEqual(listed, ['alpha-api'], 'the web page searches the same way');
});

test('a one-word q answers as the plain substring match did: the same listings, order and five fields', async (t) => {
  const service = await startTestService(t);
  const sorted = fixture.toSorted((a, b) => {
    const [x, y] = [a.name!.toLowerCase(), b.name!.toLowerCase()];
    return x !== y ? (x < y ? -1 : 1) : a.slug! < b.slug! ? -1 : 1;
  });
  const words = fixture.flatMap((listing) => SEARCHED.flatMap((field) => listing[field]!.split(/[\s,]+/)));
  for (const word of new Set([...words.map((w) => w.slice(1, 4)), ...words.map((w) => w.toUpperCase())])) {
    if (word === '') continue;
    const expected = sorted.filter((l) => SEARCHED.some((f) => l[f]!.toLowerCase().includes(word.toLowerCase())));
    const body = await search(service, `q=${encodeURIComponent(word)}&limit=100`);
    assert.deepEqual(
      slugs(body),
      expected.map((listing) => listing.slug),
      `q=${word}`,
    );
    assert.deepEqual(Object.keys(body), PAGE_FIELDS, `q=${word}`);
  }
});

test('q=weather api and q=research papers find in the shipped listings what their words find together', async (t) => {
  const service = await startTestService(t, { env: { LISTINGS_PATH: path.join(ROOT, 'data/listings.json') } });
  const found = async (q: string) => slugs(await search(service, `limit=100&q=${encodeURIComponent(q)}`));
  for (const q of ['weather api', 'research papers']) {
    const each = await Promise.all(q.split(' ').map(found));
    const together = each[0]!.filter((slug) => each.every((list) => list.includes(slug)));
    assert.ok(together.length > 0, `the shipped listings hold some listing for ${q}`);
    assert.deepEqual(await found(q), together, `q=${q}`);
  }
});

test('an empty answer names the categories of its kind with their counts, as REST and MCP describe it', async (t) => {
  const service = await startTestService(t);
  const openapi = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
  const routes = { directory: CATEGORIES.all, communities: CATEGORIES.community, tools: CATEGORIES.tool };
  for (const [route, categories] of Object.entries(routes)) {
    const empty = await search(service, 'q=weather+api', `/api/v1/${route}`);
    assert.deepEqual(empty, { items: [], total: 0, limit: 30, offset: 0, next_offset: null, categories }, route);
    assert.deepEqual(validate(empty, { $ref: '#/components/schemas/ListingPage' }, openapi), [], route);
    const pastTheEnd = await search(service, 'offset=10000', `/api/v1/${route}`);
    assert.deepEqual(Object.keys(pastTheEnd), PAGE_FIELDS, `${route}: no items, but a total, so no categories`);
  }
  const schema = (await mcp(service, 'tools/list', {})).tools.find(
    (tool: { name: string }) => tool.name === 'search_directory',
  ).outputSchema;
  for (const [kind, categories] of [
    [undefined, CATEGORIES.all],
    ['community', CATEGORIES.community],
  ] as const) {
    const args = { q: 'weather api', kind, limit: 5 };
    const result = await mcp(service, 'tools/call', { name: 'search_directory', arguments: args });
    const empty = { items: [], total: 0, limit: 5, offset: 0, next_offset: null, categories };
    assert.deepEqual([result.isError, result.structuredContent], [false, empty], `kind ${kind}`);
    assert.deepEqual(validate(result.structuredContent, schema, schema), [], `kind ${kind}`);
  }
  const found = await mcp(service, 'tools/call', { name: 'search_directory', arguments: { q: 'alpha api' } });
  assert.deepEqual(Object.keys(found.structuredContent), PAGE_FIELDS);
  assert.deepEqual(validate(found.structuredContent, schema, schema), []);
});
