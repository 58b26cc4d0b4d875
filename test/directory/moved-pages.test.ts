// `listings check` holds every address a listing gives to the page it names: a docs_url that
// moved to another page, or any address that moved to another host, is a finding, and
// `listings stale` shows every listing whose last check found something, to be fixed in the data.

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { movedElsewhere } from '../../src/directory/read-check.ts';
import { runOwner, startTestService, upsertListingsAsOwner } from '../helpers.ts';
import { ALLOWED, listed, listing, site } from './read-check-helpers.ts';

test('a redirect stays on the page when only the scheme, "www." or a trailing slash changes', () => {
  const docs = (target: string, location: string | undefined) =>
    movedElsewhere({ what: 'docs_url', target }, location);
  assert.equal(docs('https://example.org/docs', '/docs/'), false);
  assert.equal(docs('http://example.org/docs/', 'https://example.org/docs'), false);
  assert.equal(docs('https://example.org/api?x=1', 'https://www.example.org/api/?x=1'), false);
  assert.equal(docs('https://example.org/docs', 'https://example.org/docs/v2/'), true, 'another page');
  assert.equal(docs('https://example.org/docs', 'https://example.org/login?next=/docs'), true);
  assert.equal(docs('https://example.org/docs', 'https://example.com/docs'), true, 'another host');
  assert.equal(docs('https://example.org/docs', 'http://example.org/docs'), true, 'down to http');
  assert.equal(docs('https://example.org/docs', undefined), true, 'no Location');
  const home = (location: string) => movedElsewhere({ what: 'url', target: 'https://example.org/' }, location);
  assert.equal(home('/en/'), false, 'a home page may redirect within its site');
  assert.equal(home('https://example.net/'), true, 'but not to another host');
});

/** Four listings: one whose addresses all answer, and one for each kind of moved or missing page. */
async function checkMovedPages(t: TestContext) {
  const pages = await site(t, (path, res) => {
    const moved = (location: string) => void res.writeHead(301, { location }).end();
    if (path === '/docs') return moved('/docs/');
    if (path === '/old-docs') return moved('/new-docs');
    if (path === '/home') return moved('/en/home');
    if (path === '/gone-home') return moved('https://new-home.example/');
    if (path === '/missing') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
  });
  const service = await startTestService(t);
  upsertListingsAsOwner(service.dbPath, [
    listing('all-answer', { url: `${pages.base}/home`, docs_url: `${pages.base}/docs` }),
    listing('docs-moved', { url: `${pages.base}/`, docs_url: `${pages.base}/old-docs` }),
    listing('docs-gone', { url: `${pages.base}/`, docs_url: `${pages.base}/missing` }),
    listing('site-moved', { url: `${pages.base}/gone-home`, docs_url: `${pages.base}/d` }),
  ]);
  const slugs = ['all-answer', 'docs-moved', 'docs-gone', 'site-moved'];
  const checked = await runOwner(service.dbPath, ['listings', 'check', ...slugs], { env: ALLOWED });
  assert.equal(checked.code, 0, checked.stderr);
  return { service, checked, pages };
}

test('check fails a docs address that moved to another page, and any address that moved to another host', async (t) => {
  const { service, checked, pages } = await checkMovedPages(t);
  assert.match(checked.stdout, /^Checked 4 listings on \d{4}-\d\d-\d\d: 1 passed, 3 failed\.$/m);
  const rows = checked.stdout.split('\n').map((line) => [line.split(' ')[0], line.replace(/^\S+ +/, '')] as const);
  const table = new Map(rows);
  assert.match(table.get('all-answer') ?? '', /^passed +url: answered 301, moved to \/en\/home · docs_url: answered/);
  assert.equal(table.get('docs-moved'), 'FAILED  docs_url: answered 301, moved to /new-docs: update docs_url');
  assert.equal(table.get('docs-gone'), 'FAILED  docs_url: answered 404');
  assert.equal(table.get('site-moved'), 'FAILED  url: answered 301, moved to https://new-home.example/: update url');
  assert.ok(!pages.seen.some((seen) => seen.path === '/new-docs' || seen.path === '/en/home'), 'no redirect followed');
  const moved = await listed(service, 'docs-moved');
  assert.deepEqual(
    [moved.check_status, moved.check_note],
    ['failed', 'docs_url: answered 301, moved to /new-docs: update docs_url'],
  );
});

test('stale lists every listing whose last check failed, with what the check found', async (t) => {
  const { service } = await checkMovedPages(t);
  const today = new Date().toISOString().slice(0, 10);
  const text = await runOwner(service.dbPath, ['listings', 'stale', '--days', '99999']);
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  assert.match(lines[0] as string, /^All \d+ listings were read against their documentation in the last 99999 days/);
  assert.equal(lines[1], '3 listings failed the last read check; re-read and fix what it found:');
  assert.deepEqual(lines.slice(2), [
    `${today}  docs-gone   docs_url: answered 404`,
    `${today}  docs-moved  docs_url: answered 301, moved to /new-docs: update docs_url`,
    `${today}  site-moved  url: answered 301, moved to https://new-home.example/: update url`,
  ]);
  const json = await runOwner(service.dbPath, ['listings', 'stale', '--days', '99999', '--json']);
  const rows = JSON.parse(json.stdout) as { slug: string; check_status?: string; check_note?: string }[];
  assert.deepEqual(
    rows.map((row) => [row.slug, row.check_status, row.check_note]),
    [
      ['docs-gone', 'failed', 'docs_url: answered 404'],
      ['docs-moved', 'failed', 'docs_url: answered 301, moved to /new-docs: update docs_url'],
      ['site-moved', 'failed', 'url: answered 301, moved to https://new-home.example/: update url'],
    ],
  );
});
