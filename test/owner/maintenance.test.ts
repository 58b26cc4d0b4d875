// The owner script on the service itself: listings, stats, backups, purging,
// and how it reports a mistake.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import {
  assertRefused,
  fakeClock,
  FIXTURE_LISTINGS,
  newKey,
  openConversation,
  request,
  startTestService,
  tempDir,
  type TestService,
} from '../helpers.ts';
import { assertFailsWith, owner } from '../owner-run.ts';

/** Imports a file that changes one listing of the fixture and adds another. */
async function importChangedAndAdded(service: TestService, dir: string) {
  const fixture = JSON.parse(readFileSync(FIXTURE_LISTINGS, 'utf8'));
  const changed = { ...fixture[0], name: 'Zeta Forum Renamed' };
  const added = { ...fixture[1], slug: 'brand-new-tool', name: 'Brand New Tool' };
  const good = path.join(dir, 'good.json');
  writeFileSync(good, JSON.stringify([changed, added]));
  const imported = await owner(service, ['listings', 'import', good]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(imported.stdout.trim(), 'Imported 2 listings: 1 new, 1 changed, 0 unchanged.');
  return { changed, added };
}

test('listings import validates everything, upserts all or nothing, and the server serves it at once', async (t) => {
  const service = await startTestService(t);
  const dir = tempDir(t);
  const { added } = await importChangedAndAdded(service, dir);
  assert.equal((await request(service.url, 'GET', '/api/v1/directory/brand-new-tool')).body.name, 'Brand New Tool');
  assert.equal((await request(service.url, 'GET', '/api/v1/directory/zeta-forum')).body.name, 'Zeta Forum Renamed');

  const bad = path.join(dir, 'bad.json');
  const unsourced = {
    ...added,
    slug: 'unsourced',
    field_notes: [{ field: 'details.pricing', source: 'http://example.org/', note: 'Free.', seen_at: '2026-11-23' }],
  };
  writeFileSync(
    bad,
    JSON.stringify([
      { ...added, slug: 'another-new' },
      { ...added, slug: 'Bad Slug', status: 'gone' },
      { name: 'x' },
      unsourced,
    ]),
  );
  const refused = await owner(service, ['listings', 'import', bad]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /nothing was imported/);
  assert.match(refused.stderr, /listing 1 \("Bad Slug"\): slug must be 1 to 100 lowercase letters/);
  assert.match(refused.stderr, /listing 1 \("Bad Slug"\): status must be one of documented, unavailable, limited/);
  assert.match(refused.stderr, /listing 2: slug is required/);
  assert.match(refused.stderr, /listing 3 \("unsourced"\): field_notes\[0\]\.field must name a field this listing has/);
  assert.match(
    refused.stderr,
    /listing 3 \("unsourced"\): field_notes\[0\]\.source must be the https URL of the page read/,
  );
  assertRefused(await request(service.url, 'GET', '/api/v1/directory/another-new'), 404, /No listing has this slug/);
});

test('listings export imports back unchanged, and import reads standard input', async (t) => {
  const service = await startTestService(t);
  const dir = tempDir(t);
  const { changed } = await importChangedAndAdded(service, dir);
  const exported = await owner(service, ['listings', 'export']);
  const roundTrip = path.join(dir, 'export.json');
  writeFileSync(roundTrip, exported.stdout);
  const again = await owner(service, ['listings', 'import', roundTrip]);
  assert.equal(again.stdout.trim(), 'Imported 13 listings: 0 new, 0 changed, 13 unchanged.');
  const piped = await owner(service, ['listings', 'import', '-'], {
    input: JSON.stringify([{ ...changed, name: 'Z' }]),
  });
  assert.equal(piped.stdout.trim(), 'Imported 1 listing: 0 new, 1 changed, 0 unchanged.', 'from standard input');
  assertFailsWith(
    await owner(service, ['listings', 'import', '-'], { input: '[{' }),
    /standard input is not valid JSON/,
  );
});

test('listings remove takes a listing off at once; a wrong slug, file or command is refused', async (t) => {
  const service = await startTestService(t);
  const dir = tempDir(t);
  await importChangedAndAdded(service, dir);
  assert.equal((await owner(service, ['listings', 'remove', 'brand-new-tool'])).code, 0);
  assertRefused(await request(service.url, 'GET', '/api/v1/directory/brand-new-tool'), 404, /No listing has this slug/);
  assert.equal((await request(service.url, 'GET', '/api/v1/directory')).body.total, 12);
  assertFailsWith(
    await owner(service, ['listings', 'remove', 'brand-new-tool']),
    /no listing has the slug "brand-new-tool"/,
  );
  assertFailsWith(
    await owner(service, ['listings', 'import', path.join(dir, 'missing.json')]),
    /cannot read .*missing\.json/,
  );
  assertFailsWith(await owner(service, ['listings', 'frobnicate']), /usage: listings import/);
});

test('listings stale lists listings not read against their documentation for --days (90), oldest first', async (t) => {
  const service = await startTestService(t);
  const fixture = JSON.parse(readFileSync(FIXTURE_LISTINGS, 'utf8')) as { slug: string; docs_url: string }[];
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  const file = path.join(tempDir(t), 'aged.json');
  const aged = fixture.map((listing) => ({ ...listing, verified_at: daysAgo(1) }));
  Object.assign(aged[0] as object, { verified_at: daysAgo(100) });
  Object.assign(aged[1] as object, { verified_at: daysAgo(200) });
  Object.assign(aged[2] as object, { verified_at: daysAgo(60) });
  writeFileSync(file, JSON.stringify(aged));
  assert.equal((await owner(service, ['listings', 'import', file])).code, 0);
  const [oldest, older, recent] = aged;

  const text = await owner(service, ['listings', 'stale']);
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  assert.equal(
    lines[0],
    `2 of 12 listings were last read against their documentation before ${daysAgo(90)} (90 days ago), oldest first:`,
  );
  assert.match(lines[1] as string, new RegExp(`^${daysAgo(200)}  ${older?.slug} +${older?.docs_url}$`));
  assert.match(lines[2] as string, new RegExp(`^${daysAgo(100)}  ${oldest?.slug} +${oldest?.docs_url}$`));
  assert.equal(lines.length, 3);

  const json = JSON.parse((await owner(service, ['listings', 'stale', '--days', '30', '--json'])).stdout) as {
    slug: string;
    days_since: number;
    docs_url: string;
  }[];
  assert.deepEqual(
    json.map((listing) => listing.slug),
    [older?.slug, oldest?.slug, recent?.slug],
  );
  assert.deepEqual(
    json.map((listing) => listing.days_since),
    [200, 100, 60],
  );
  assert.deepEqual(Object.keys(json[0] as object), ['slug', 'name', 'verified_at', 'days_since', 'docs_url']);

  const fresh = await owner(service, ['listings', 'stale', '--days', '365']);
  assert.equal(
    fresh.stdout.trim(),
    `All 12 listings were read against their documentation in the last 365 days (on or after ${daysAgo(365)}).`,
  );
  assert.deepEqual(JSON.parse((await owner(service, ['listings', 'stale', '--days', '365', '--json'])).stdout), []);
  assertFailsWith(
    await owner(service, ['listings', 'stale', '--days', 'soon']),
    /--days must be a whole number of days from 0 to 99999, got "soon"/,
  );
  assertFailsWith(
    await owner(service, ['listings', 'export', '--days', '3']),
    /usage: listings import <file or -> \| listings export/,
  );
});

test('stats gives the day count, conversations by status and the database size', async (t) => {
  const service = await startTestService(t);
  const a = await openConversation(service.url);
  const followUp = { token: a.token, key: newKey(), json: { message: 'more' } };
  assert.equal((await request(service.url, 'POST', `/api/v1/conversations/${a.id}/messages`, followUp)).status, 201);
  const b = await openConversation(service.url);
  await owner(service, ['reply', a.id, 'answer']);
  const before = JSON.parse((await owner(service, ['stats', '--json'])).stdout);
  assert.equal(before.messages_today, 4);
  const busiest = { id: a.id, count: 2, share: 50 };
  assert.deepEqual(before.busiest_conversation_today, busiest, "the owner's reply is not its");
  assert.deepEqual(before.busiest_address_today, { count: 3, share: 100 }, 'every client message from one address');
  assert.deepEqual(before.unverified_today, { count: 3, pool: 150 });
  assert.equal((await owner(service, ['block', a.id])).code, 0);
  // The block gives the day back: a's two client messages no longer count; the owner's reply does.
  const stats = JSON.parse((await owner(service, ['stats', '--json'])).stdout);
  assert.equal(stats.messages_today, 2);
  assert.equal(stats.daily_maximum, 500);
  assert.deepEqual(stats.conversations, { open: 1, answered: 0, closed: 0 }, 'a blocked conversation is counted apart');
  assert.equal(stats.blocked, 1);
  assert.equal(stats.messages, 4);
  assert.ok(stats.database_bytes > 4096);
  assert.equal(stats.owner_replies_today, 1);
  assert.equal(stats.owner_reserve, 50);
  assert.deepEqual(stats.busiest_conversation_today, { id: b.id, count: 1, share: 50 });
  assert.deepEqual(stats.busiest_address_today, { count: 1, share: 100 });
  assert.deepEqual(stats.busiest_site_today, { site: null, count: 0, share: 150 });
  assert.deepEqual(stats.verified_strangers_today, { count: 0, pool: 150 });
  assert.deepEqual(stats.unverified_today, { count: 1, pool: 150 });
  const text = await owner(service, ['stats']);
  assert.match(
    text.stdout,
    new RegExp(
      ': 2 messages of 500 .*\\n  your replies: 1; 50 of the maximum are kept for them\\n' +
        `  busiest conversation: 1 of its share of 50 \\(${b.id}\\)\\n  busiest address: 1 of its share of 100\\n` +
        '  busiest site: 0 of its share of 150\\n' +
        '  verified agents you do not know, together: 0 of their pool of 150\\n' +
        '  unverified senders together: 1 of their pool of 150\\n' +
        'Conversations: 1 open, 0 answered, 0 closed; 1 blocked',
    ),
  );
  assert.equal((await owner(service, ['unblock', a.id])).code, 0);
  const unblocked = JSON.parse((await owner(service, ['stats', '--json'])).stdout);
  assert.equal(unblocked.messages_today, 4, 'an unblock counts them again');
});

test('backup makes a consistent copy while the server runs, holding every message', async (t) => {
  const service = await startTestService(t);
  const dir = tempDir(t);
  const conversations = [];
  for (let i = 0; i < 5; i++) conversations.push(await openConversation(service.url, { message: `message ${i}` }));
  const writes = Promise.all(
    conversations.map((c) =>
      request(service.url, 'POST', `/api/v1/conversations/${c.id}/messages`, {
        token: c.token,
        key: newKey(),
        json: { message: 'during backup' },
      }),
    ),
  );
  const target = path.join(dir, 'backup.db');
  const result = await owner(service, ['backup', target]);
  await writes;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /checked\.$/m);
  const copy = new DatabaseSync(target, { readOnly: true });
  t.after(() => copy.close());
  assert.equal((copy.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
  const copied = copy
    .prepare('SELECT message FROM messages WHERE seq = 1 ORDER BY message')
    .all()
    .map((row) => row.message);
  assert.deepEqual(copied, ['message 0', 'message 1', 'message 2', 'message 3', 'message 4']);
  assert.deepEqual(readdirSync(dir), ['backup.db'], 'one self-contained file, no partial file left behind');
  assertFailsWith(await owner(service, ['backup', target]), /already exists/);
  assertFailsWith(
    await owner(service, ['backup', path.join(dir, 'no-such-folder', 'b.db')]),
    /cannot write the backup/,
  );
  assert.deepEqual(readdirSync(dir), ['backup.db']);
});

test('purge-expired deletes conversations whose credential expired, with their messages', async (t) => {
  const clock = fakeClock('2024-01-01T00:00:00.000Z');
  const service = await startTestService(t, { now: clock.now });
  const expired = await openConversation(service.url, { message: 'old' });
  clock.set(new Date().toISOString());
  const current = await openConversation(service.url, { message: 'new' });
  // The server knows both credentials before the purge, as it would in service.
  assertRefused(
    await request(service.url, 'GET', `/api/v1/conversations/${expired.id}`, { token: expired.token }),
    410,
    /expired at/,
  );
  assert.equal(
    (await request(service.url, 'GET', `/api/v1/conversations/${current.id}`, { token: current.token })).status,
    200,
  );
  const purged = await owner(service, ['purge-expired']);
  assert.equal(purged.stdout.trim(), 'Deleted 1 expired conversation with their messages and keys.');
  assert.equal(service.store.conversationById(expired.id), undefined);
  assert.equal(service.store.messagesAfter(expired.id, 0, 100).length, 0);
  assertRefused(
    await request(service.url, 'GET', `/api/v1/conversations/${expired.id}`, { token: expired.token }),
    401,
    /matches no conversation/,
  );
  assert.equal(
    (await request(service.url, 'GET', `/api/v1/conversations/${current.id}`, { token: current.token })).status,
    200,
  );
});
