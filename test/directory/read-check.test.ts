// `listings check`: the live read check, run by the owner script against local servers that
// answer well, badly, slowly and not at all (allowed by OUTBOUND_ALLOWED_HOSTS, as a test must).

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { asksForJson, keylessGet } from '../../src/directory/read-check.ts';
import { SERVICE_VERSION } from '../../src/base/version.ts';
import { request, runOwner, startTestService, upsertListingsAsOwner } from '../helpers.ts';
import { ALLOWED, closedPort, listed, listing, site } from './read-check-helpers.ts';

const SLUGS = [
  'good-api',
  'bad-docs',
  'moved-docs',
  'bad-json',
  'keyed-example',
  'server-error',
  'nobody-home',
  'private-address',
];

/** Serves a listing for each outcome of a read (and one with a keyed example) and checks them all once. */
async function checkEachOutcome(t: TestContext) {
  const good = await site(t, (path, res) => {
    if (path === '/example.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('[1]');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>docs</p>');
  });
  const bad = await site(t, (path, res) => {
    if (path === '/broken.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{');
    if (path === '/moved') return void res.writeHead(301, { location: 'https://elsewhere.example/docs' }).end();
    if (path === '/docs') return void res.writeHead(301, { location: '/docs/' }).end(); // the same page
    res.writeHead(path === '/error' ? 500 : 404).end();
  });
  const nothing = `http://127.0.0.1:${await closedPort()}`;
  const service = await startTestService(t);
  upsertListingsAsOwner(service.dbPath, [
    listing('good-api', {
      url: `${good.base}/`,
      docs_url: `${bad.base}/docs`,
      example_request: `GET ${good.base}/example.json`,
    }),
    listing('bad-docs', { url: `${good.base}/home`, docs_url: `${bad.base}/missing` }),
    listing('moved-docs', { url: `${good.base}/h`, docs_url: `${bad.base}/moved` }),
    listing('bad-json', {
      url: `${good.base}/a`,
      docs_url: `${good.base}/b`,
      example_request: `GET ${bad.base}/broken.json`,
    }),
    listing('keyed-example', {
      url: `${good.base}/c`,
      docs_url: `${good.base}/d`,
      example_request: `GET ${good.base}/example.json?api_key=YOUR_KEY`,
    }),
    listing('server-error', { url: `${bad.base}/error`, docs_url: `${good.base}/e` }),
    listing('nobody-home', { url: `${nothing}/`, docs_url: `${good.base}/f` }),
    listing('private-address', { url: 'https://10.1.2.3/', docs_url: `${good.base}/g` }),
  ]);
  // The fixture's own listings point at hosts of the internet: only these are checked.
  const checked = await runOwner(service.dbPath, ['listings', 'check', ...SLUGS], { env: ALLOWED });
  assert.equal(checked.code, 0, checked.stderr);
  return { good, bad, service, checked };
}

test('check prints each outcome in its table', async (t) => {
  const { checked } = await checkEachOutcome(t);
  assert.match(checked.stdout, /^Checked 8 listings on \d{4}-\d\d-\d\d: 2 passed, 6 failed\.$/m);
  assert.match(checked.stdout, /^good-api +passed +url: answered 200 · docs_url: answered 301, moved to \/docs\/ ·/m);
  assert.match(checked.stdout, /^bad-docs +FAILED +docs_url: answered 404$/m);
  assert.match(
    checked.stdout,
    /^moved-docs +FAILED +docs_url: answered 301, moved to https:\/\/elsewhere\.example\/docs: update docs_url$/m,
  );
  assert.match(checked.stdout, /^bad-json +FAILED +example_request: answered 200, but the body is not the JSON/m);
  assert.match(checked.stdout, /^server-error +FAILED +url: answered 500$/m);
  assert.match(checked.stdout, /^nobody-home +FAILED +url: .*(refused|ECONNREFUSED)/m);
  assert.match(
    checked.stdout,
    /^private-address +FAILED +url: not read: the URL's host 10\.1\.2\.3 is a private address/m,
  );
});

test('check records each outcome on the listing, for the API and the page', async (t) => {
  const { service } = await checkEachOutcome(t);
  const today = new Date().toISOString().slice(0, 10);
  const passed = await listed(service, 'good-api');
  assert.deepEqual(
    [passed.check_status, passed.checked_at, passed.tested_by, passed.last_tested_at, passed.check_note],
    ['passed', today, 'read_tested', today, undefined],
  );
  const keyed = await listed(service, 'keyed-example');
  assert.deepEqual([keyed.check_status, keyed.tested_by], ['passed', undefined], 'an example with a key is not run');
  const failed = await listed(service, 'bad-json');
  assert.deepEqual([failed.check_status, failed.tested_by], ['failed', undefined]);
  assert.match(failed.check_note, /^example_request: answered 200, but the body is not the JSON it promises$/);
  const page = (await request(service.url, 'GET', '/listings/bad-docs')).text;
  assert.match(page, new RegExp(`Read check: on ${today} this service found a problem: docs_url: answered 404\\.`));
  assert.match((await request(service.url, 'GET', '/listings/good-api')).text, /found them answering\..*successfully/);
});

test('check only GETs, names itself in User-Agent, and never calls a keyed example', async (t) => {
  const { good, bad } = await checkEachOutcome(t);
  const everyRequest = [...good.seen, ...bad.seen];
  assert.ok(
    everyRequest.every((seen) => seen.method === 'GET'),
    'only GET',
  );
  const agent = new RegExp(
    `^agent-contact-service/${SERVICE_VERSION.replaceAll('.', '\\.')} \\(directory read check; `,
  );
  assert.ok(
    everyRequest.every((seen) => agent.test(seen.userAgent)),
    everyRequest[0]?.userAgent,
  );
  assert.ok(!good.seen.some((seen) => seen.path.includes('api_key')), 'the keyed example was never called');
});

test('check --json reports each read of a listing', async (t) => {
  const { service } = await checkEachOutcome(t);
  const report = await runOwner(service.dbPath, ['listings', 'check', 'bad-docs', '--json'], { env: ALLOWED });
  const [entry] = JSON.parse(report.stdout);
  assert.equal(entry.slug, 'bad-docs');
  assert.deepEqual(
    entry.reads.map((read: { what: string; ok: boolean }) => [read.what, read.ok]),
    [
      ['url', true],
      ['docs_url', false],
    ],
  );
});

test('one request at a time per host, a short Retry-After waited out once, a slow host cut off', async (t) => {
  const busy = await site(t, (path, res, count) => {
    if (path === '/later' && count === 1) return void res.writeHead(429, { 'retry-after': '1' }).end();
    if (path === '/tomorrow') return void res.writeHead(503, { 'retry-after': '86400' }).end();
    // Each answer waits for the next turn of the loop, so that requests sent together would overlap.
    setImmediate(() => res.writeHead(200).end('ok'));
  });
  const slow = await site(t, () => {}); // never answers; closed when the test ends
  const service = await startTestService(t);
  const many = Array.from({ length: 12 }, (_, i) =>
    listing(`page-${i}`, { url: `${busy.base}/p${i}`, docs_url: `${busy.base}/d${i}` }),
  );
  const listings = [
    ...many,
    listing('rate-limited', { url: `${busy.base}/later`, docs_url: `${busy.base}/docs` }),
    listing('closed-for-a-day', { url: `${busy.base}/tomorrow`, docs_url: `${busy.base}/docs` }),
    listing('hanging', { url: `${slow.base}/`, docs_url: `${busy.base}/docs` }),
  ];
  upsertListingsAsOwner(service.dbPath, listings);
  const slugs = listings.map((l) => l.slug);
  const checked = await runOwner(service.dbPath, ['listings', 'check', '--timeout', '1', ...slugs], { env: ALLOWED });
  assert.equal(checked.code, 0, checked.stderr);
  assert.equal(busy.mostAtOnce(), 1, 'one request at a time to one host');
  assert.equal(busy.seen.filter((seen) => seen.path === '/later').length, 2, 'asked again once, after Retry-After');
  assert.match(checked.stdout, /^rate-limited +passed /m);
  assert.match(checked.stdout, /^closed-for-a-day +FAILED +url: answered 503; it asks to come back in 86400 s$/m);
  assert.match(
    checked.stdout,
    /^hanging +FAILED +url: the request to 127\.0\.0\.1:\d+ did not finish within 1000 ms$/m,
  );
  assert.equal((await listed(service, 'hanging')).check_status, 'failed');
});

test('check refuses what it cannot do, and changes nothing then', async (t) => {
  const service = await startTestService(t);
  const unknown = await runOwner(service.dbPath, ['listings', 'check', 'no-such-listing']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^error: no listing has the slug "no-such-listing"$/m);
  const badTimeout = await runOwner(service.dbPath, ['listings', 'check', '--timeout', '0']);
  assert.match(badTimeout.stderr, /--timeout must be a whole number of seconds from 1 to 120, got "0"/);
  const all = (await request(service.url, 'GET', '/api/v1/directory?limit=100')).body.items;
  assert.ok(all.length > 0 && all.every((item: { checked_at?: string }) => !item.checked_at), 'nothing recorded');
});

test('when no host answers at all, the machine is taken to be offline and nothing is recorded', async (t) => {
  const [one, two] = [`http://127.0.0.1:${await closedPort()}`, `http://127.0.0.1:${await closedPort()}`];
  const service = await startTestService(t, { env: ALLOWED });
  upsertListingsAsOwner(service.dbPath, [
    listing('first-down', { url: `${one}/`, docs_url: `${one}/docs` }),
    listing('second-down', { url: `${two}/`, docs_url: `${two}/docs` }),
  ]);
  const offline = await runOwner(service.dbPath, ['listings', 'check', 'first-down', 'second-down'], { env: ALLOWED });
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /^error: no host answered, so nothing was recorded; is this machine offline\?/m);
  for (const slug of ['first-down', 'second-down']) {
    const shown = await listed(service, slug);
    assert.deepEqual([shown.check_status, shown.checked_at], ['unchecked', ''], slug);
  }
  // One host that does not answer is that listing's failure, not an offline machine.
  const alone = await runOwner(service.dbPath, ['listings', 'check', 'first-down'], { env: ALLOWED });
  assert.equal(alone.code, 0, alone.stderr);
  assert.equal((await listed(service, 'first-down')).check_status, 'failed');
});

test("an import keeps what the last check recorded, and refuses check fields that contradict each other", async (t) => {
  const good = await site(t, (_path, res) => res.writeHead(200).end('ok'));
  const service = await startTestService(t, { env: ALLOWED });
  const before = listing('kept-check', {
    url: `${good.base}/`,
    docs_url: `${good.base}/docs`,
    example_request: `GET ${good.base}/example`,
  });
  upsertListingsAsOwner(service.dbPath, [before]);
  assert.equal((await runOwner(service.dbPath, ['listings', 'check', 'kept-check'], { env: ALLOWED })).code, 0);
  const edited = JSON.stringify([{ ...before, description: 'Edited in a file exported before the check.' }]);
  const imported = await runOwner(service.dbPath, ['listings', 'import', '-'], { input: edited });
  assert.equal(imported.code, 0, imported.stderr);
  const shown = await listed(service, 'kept-check');
  assert.equal(shown.description, 'Edited in a file exported before the check.');
  assert.deepEqual([shown.check_status, shown.checked_at.length], ['passed', 10], 'the check stays recorded');
  assert.deepEqual([shown.tested_by, shown.last_tested_at], ['read_tested', shown.checked_at], 'and its read test');
  const contradicting = JSON.stringify([{ ...before, check_status: 'passed', checked_at: '' }]);
  const refused = await runOwner(service.dbPath, ['listings', 'import', '-'], { input: contradicting });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /checked_at must be the day of the check \(YYYY-MM-DD\) while check_status is passed/);
});

test('only a keyless GET example is run: no template, no second step, no key in the query', () => {
  const runs = (example: string) => keylessGet(example) !== null;
  assert.ok(runs('GET https://api.example.org/v1/items?author=tolkien&format=json'));
  assert.ok(runs('GET https://api.example.org/search?mailto=owner@example.org'));
  for (const example of [
    'GET https://api.example.org/item/{id}.json',
    'GET https://api.example.org/top.json then GET https://api.example.org/item/{id}.json',
    'GET https://api.example.org/x (header Authorization: Bearer <key>)',
    'GET https://api.example.org/x?api_key=DEMO_KEY',
    'GET https://api.example.org/x?apikey=abc',
    'GET https://api.example.org/x?access_token=abc',
    'GET https://api.example.org/x?per-page=3&key=YOUR_KEY',
    'POST https://api.example.org/query {"a": 1}',
  ]) {
    assert.ok(!runs(example), example);
  }
  assert.ok(asksForJson('https://a.example/x.json') && asksForJson('https://a.example/x?fmt=json'));
  assert.ok(asksForJson('https://a.example/x?format=jsonv2') && asksForJson('https://a.example/q?format=geojson'));
  assert.ok(!asksForJson('https://export.example.org/api/query?search_query=all'));
});
