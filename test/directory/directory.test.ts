// The public directory over REST: order, kinds, search, paging, the parameters' limits, one listing.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ANSWER_CACHE_BUDGET_BYTES, Directory } from '../../src/directory/snapshot.ts';
import { parseListings } from '../../src/directory/listings.ts';
import { Store } from '../../src/store/store.ts';
import type { Kind } from '../../src/rules/validate.ts';
import { assertRefused, FIXTURE_LISTINGS, request, startTestService, upsertListingsAsOwner } from '../helpers.ts';

const fixture = JSON.parse(readFileSync(FIXTURE_LISTINGS, 'utf8')) as Record<string, unknown>[];
const ALL_IN_ORDER = [
  'alpha-archive', // "alpha"
  'alpha-api', // "alpha api": names compare case-insensitively
  'beta-chat',
  'delta-social',
  'filler-1',
  'filler-2',
  'filler-3',
  'filler-4',
  'gamma-weather',
  'quote-tool', // "o'brien's quotes"
  'eszett-tool', // "straße finder"
  'zeta-forum',
];
const slugs = (body: { items: { slug: string }[] }) => body.items.map((item) => item.slug);

test('the directory lists every listing sorted by name case-insensitively, then slug', async (t) => {
  const service = await startTestService(t);
  const response = await request(service.url, 'GET', '/api/v1/directory');
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.deepEqual(slugs(response.body), ALL_IN_ORDER);
  assert.equal(response.body.total, 12);
  assert.equal(response.body.limit, 30);
  assert.equal(response.body.offset, 0);
  assert.equal(response.body.next_offset, null);
});

test('listings with equal names are ordered by slug', async (t) => {
  const service = await startTestService(t);
  const same = (slug: string) => ({ ...fixture[0], slug, name: 'Same Name' });
  upsertListingsAsOwner(service.dbPath, [same('same-b'), same('same-a')]);
  const response = await request(service.url, 'GET', '/api/v1/directory?q=same%20name');
  assert.deepEqual(slugs(response.body), ['same-a', 'same-b']);
});

test('communities and tools list only their own kind', async (t) => {
  const service = await startTestService(t);
  const communities = await request(service.url, 'GET', '/api/v1/communities');
  assert.deepEqual(slugs(communities.body), ['beta-chat', 'delta-social', 'zeta-forum']);
  assert.equal(communities.body.total, 3);
  const tools = await request(service.url, 'GET', '/api/v1/tools?limit=100');
  assert.equal(tools.body.total, 9);
  assert.ok(tools.body.items.every((item: { kind: string }) => item.kind === 'tool'));
});

test('q matches a case-insensitive substring of name, slug, description, category or tags', async (t) => {
  const service = await startTestService(t);
  const cases: [string, string[]][] = [
    ['ZETA', ['zeta-forum']], // name
    ['beta-ch', ['beta-chat']], // slug
    ['REAL-TIME', ['beta-chat']], // description
    ['WEATHER', ['gamma-weather']], // category and tags
    ['textiles', ['zeta-forum']], // tags
    ['no such words anywhere', []],
  ];
  for (const [q, expected] of cases) {
    const response = await request(service.url, 'GET', `/api/v1/directory?q=${encodeURIComponent(q)}`);
    assert.deepEqual(slugs(response.body), expected, `q=${q}`);
    assert.equal(response.body.total, expected.length, `q=${q}`);
  }
});

test('q folds case Unicode-aware and treats %, _, quote and backslash literally', async (t) => {
  const service = await startTestService(t);
  const cases: [string, string[]][] = [
    ['STRAßE', ['eszett-tool']],
    ['äöü', ['eszett-tool']],
    ['100%', ['zeta-forum']],
    ['%', ['zeta-forum']],
    ['_', ['zeta-forum']], // only "cotton_weaving" has an underscore
    ['n_w', ['zeta-forum']],
    ["o'brien", ['quote-tool']],
    ['\\', ['quote-tool']],
  ];
  for (const [q, expected] of cases) {
    const response = await request(service.url, 'GET', `/api/v1/directory?q=${encodeURIComponent(q)}`);
    assert.deepEqual(slugs(response.body), expected, `q=${q}`);
  }
});

test('category is an exact, case-insensitive match and combines with kind and q', async (t) => {
  const service = await startTestService(t);
  const social = await request(service.url, 'GET', '/api/v1/directory?category=SOCIAL');
  assert.deepEqual(slugs(social.body), ['beta-chat', 'delta-social']);
  const partial = await request(service.url, 'GET', '/api/v1/directory?category=soc');
  assert.deepEqual(slugs(partial.body), []);
  const combined = await request(service.url, 'GET', '/api/v1/communities?category=forums&q=cotton');
  assert.deepEqual(slugs(combined.body), ['zeta-forum']);
  const wrongKind = await request(service.url, 'GET', '/api/v1/tools?category=social');
  assert.equal(wrongKind.body.total, 0);
});

test('empty q and category mean no filter, and unknown parameters are ignored', async (t) => {
  const service = await startTestService(t);
  const response = await request(service.url, 'GET', '/api/v1/directory?q=&category=&color=blue');
  assert.equal(response.status, 200);
  assert.deepEqual(slugs(response.body), ALL_IN_ORDER);
});

test('limit and offset page through the list with next_offset until the end', async (t) => {
  const service = await startTestService(t);
  const seen: string[] = [];
  let offset: number | null = 0;
  const offsets: number[] = [];
  while (offset !== null) {
    offsets.push(offset);
    const response = await request(service.url, 'GET', `/api/v1/directory?limit=5&offset=${offset}`);
    assert.equal(response.body.limit, 5);
    assert.equal(response.body.offset, offset);
    assert.equal(response.body.total, 12);
    seen.push(...slugs(response.body));
    offset = response.body.next_offset;
  }
  assert.deepEqual(offsets, [0, 5, 10]);
  assert.deepEqual(seen, ALL_IN_ORDER);
  const exact = await request(service.url, 'GET', '/api/v1/directory?limit=6&offset=6');
  assert.equal(exact.body.next_offset, null, 'offset + limit equal to total has no next page');
  const past = await request(service.url, 'GET', '/api/v1/directory?offset=10000');
  assert.deepEqual(past.body.items, []);
  assert.equal(past.body.total, 12);
  assert.equal(past.body.next_offset, null);
});

test('the limits of limit, offset and q are accepted at their edges', async (t) => {
  const service = await startTestService(t);
  for (const query of [
    'limit=1',
    'limit=100',
    'offset=0',
    'offset=10000',
    `q=${'a'.repeat(120)}`,
    `q=${'é'.repeat(120)}`,
  ]) {
    const response = await request(service.url, 'GET', `/api/v1/directory?${query}`);
    assert.equal(response.status, 200, query);
  }
});

test('bad directory parameters get 400 naming the parameter and the allowed range', async (t) => {
  const service = await startTestService(t);
  const cases: [string, RegExp][] = [
    ['limit=0', /`limit` must be a whole number from 1 to 100/],
    ['limit=101', /`limit` must be a whole number from 1 to 100/],
    ['limit=abc', /`limit`/],
    ['limit=', /`limit`/],
    ['limit=1.5', /`limit`/],
    ['limit=-1', /`limit`/],
    ['limit=%2B5', /`limit`/],
    ['limit=99999999999999999999999', /`limit`/],
    ['offset=-1', /`offset` must be a whole number from 0 to 10000/],
    ['offset=10001', /`offset` must be a whole number from 0 to 10000/],
    ['offset=1e3', /`offset`/],
    [`q=${'a'.repeat(121)}`, /`q` must be at most 120 characters, got 121/],
    [`q=${encodeURIComponent('é'.repeat(121))}`, /`q` must be at most 120 characters/],
    ['limit=5&limit=6', /A query parameter is repeated; send each one once/],
    ['q=%E0%A4%A', /malformed percent-encoding/],
    ['access_token=abc', /Never put the credential in a URL/],
    [`token=${'ab12'.repeat(16)}`, /Never put the credential in a URL/],
    [`auth=Bearer%20${'AB12'.repeat(16)}`, /Never put the credential in a URL/],
    [`${'0f'.repeat(32)}`, /Never put the credential in a URL/], // a bare name
    [`auth=token:${'ab12cd'.repeat(11)}`, /Never put the credential in a URL/], // after a prefix
  ];
  for (const [query, pattern] of cases) {
    for (const route of ['/api/v1/directory', '/api/v1/communities', '/api/v1/tools']) {
      const response = await request(service.url, 'GET', `${route}?${query}`);
      assertRefused(response, 400, pattern, `${route}?${query}`);
    }
  }
});

test('one listing is fetched by slug and is the same object as in the list', async (t) => {
  const service = await startTestService(t);
  const one = await request(service.url, 'GET', '/api/v1/directory/alpha-api');
  assert.equal(one.status, 200);
  const list = await request(service.url, 'GET', '/api/v1/directory?q=alpha-api');
  assert.deepEqual(list.body.items[0], one.body);
  assert.deepEqual(
    one.body,
    fixture.find((item) => item.slug === 'alpha-api'),
  );
});

test('a listing keeps every spec field, in order, and omits absent optional fields', async (t) => {
  const service = await startTestService(t);
  const plain = await request(service.url, 'GET', '/api/v1/directory/beta-chat');
  assert.deepEqual(Object.keys(plain.body), [
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
  ]);
  const full = await request(service.url, 'GET', '/api/v1/directory/alpha-api');
  assert.deepEqual(Object.keys(full.body).slice(11), [
    'entry_url',
    'entry_type',
    'auth_type',
    'quickstart',
    'example_request',
    'writes',
    'rate_limits',
    'gotchas',
    'check_status',
    'checked_at',
    'disclosure',
    'field_notes',
  ]);
  assert.equal(full.body.checked_at, '');
  assert.deepEqual(full.body.field_notes, []);
  assert.ok(!JSON.stringify(full.body).includes('null'));
});

test('an unknown slug gets 404 with the error body', async (t) => {
  const service = await startTestService(t);
  const response = await request(service.url, 'GET', '/api/v1/directory/no-such-listing');
  assertRefused(response, 404, /No listing has this slug/);
  const encoded = await request(service.url, 'GET', '/api/v1/directory/%25_%27');
  assertRefused(encoded, 404, /No listing has this slug/);
  const malformed = await request(service.url, 'GET', '/api/v1/directory/%E0%A4%A');
  assertRefused(malformed, 400, /malformed percent-encoding/);
});

test('HEAD answers like GET without a body', async (t) => {
  const service = await startTestService(t);
  const get = await request(service.url, 'GET', '/api/v1/directory');
  const head = await request(service.url, 'HEAD', '/api/v1/directory');
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)));
});

test('the answer cache holds at most its byte budget, however many distinct queries arrive', (t) => {
  const store = new Store(':memory:');
  t.after(() => store.close());
  const filler = 'Words that make each listing weigh about a kilobyte. '.repeat(15);
  const listing = (i: number) => ({ ...fixture[1], slug: `cached-${i}`, description: `Listing ${i}. ${filler}` });
  store.listings.upsert(parseListings(Array.from({ length: 150 }, (_, i) => listing(i))));
  const directory = new Directory(store);
  const queryFor = (i: number) => ({
    kind: (['tool', null, 'community'] as const)[i % 3] as Kind | null,
    q: ['', 'listing', 'cached numbers', 'no such word'][i % 4] as string,
    category: i % 5 === 0 ? 'DATA' : '',
    limit: 1 + (i % 100),
    offset: Math.floor(i / 100), // with limit, a different query each time
  });
  const first = directory.list(queryFor(0)).bytes;
  let made = 0;
  for (let i = 1; i < 3000; i++) {
    made += directory.list(queryFor(i)).bytes.length;
    assert.ok(directory.cachedBytes <= ANSWER_CACHE_BUDGET_BYTES, `after ${i} queries: ${directory.cachedBytes}`);
  }
  assert.ok(made > 4 * ANSWER_CACHE_BUDGET_BYTES, `the answers (${made} bytes) would not all have fitted`);
  assert.ok(directory.cachedBytes > ANSWER_CACHE_BUDGET_BYTES / 2, 'the cache is still used');
  assert.deepEqual(directory.list(queryFor(0)).bytes, first, 'an answer let go is made again the same');
});
