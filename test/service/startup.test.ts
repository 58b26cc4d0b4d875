// Start-up: configuration and its refusals, the first start's database and listings, a clean shutdown.

import assert from 'node:assert/strict';
import net from 'node:net';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { ConfigError, loadConfig } from '../../src/base/config.ts';
import { MIGRATIONS, migrate } from '../../src/store/migrations.ts';
import { ROOT, runNode, startServerProcess, tempDir, waitUntil } from '../helpers.ts';

const MAIN = 'src/main.ts';

test('configuration defaults follow the API decisions', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.dbPath, path.resolve('data/service.db'));
  assert.equal(config.publicBaseUrl, null, 'derived from the address the server listens on');
  assert.equal(config.dailyMessageLimit, 500);
  assert.equal(config.pollIntervalSeconds, 60);
  assert.equal(config.createLimitPerHour, 30);
  assert.equal(config.requestLimitPerMinute, 600);
  assert.equal(config.trustProxy, false);
  assert.equal(config.notifyCommand, null);
  assert.ok(Object.isFrozen(config));
});

test('bad configuration values are refused with a message naming the variable', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /^PORT must be a whole number from 0 to 65535, got "eighty"$/],
    [{ PORT: '70000' }, /^PORT/],
    [{ PORT: '-1' }, /^PORT/],
    [{ DAILY_MESSAGE_LIMIT: '1.5' }, /^DAILY_MESSAGE_LIMIT/],
    [{ POLL_INTERVAL_SECONDS: 'soon' }, /^POLL_INTERVAL_SECONDS/],
    [{ CREATE_LIMIT_PER_HOUR: 'x' }, /^CREATE_LIMIT_PER_HOUR/],
    [{ REQUEST_LIMIT_PER_MINUTE: '1e3' }, /^REQUEST_LIMIT_PER_MINUTE/],
    [{ TRUST_PROXY: 'yes' }, /^TRUST_PROXY must be 1 or 0/],
    [{ PUBLIC_BASE_URL: 'example.org' }, /^PUBLIC_BASE_URL/],
    [{ PUBLIC_BASE_URL: 'ftp://example.org' }, /^PUBLIC_BASE_URL/],
    [{ PUBLIC_BASE_URL: 'https://host.test/contact' }, /^PUBLIC_BASE_URL must be an origin alone .*a subdomain/],
    [{ PUBLIC_BASE_URL: 'https://host.test/?x=1' }, /^PUBLIC_BASE_URL must be an origin alone/],
    [{ PUBLIC_BASE_URL: 'https://user@host.test' }, /^PUBLIC_BASE_URL must be an origin alone/],
    [{ DAILY_SITE_SHARE: '5', DAILY_AGENT_SHARE: '6' }, /^DAILY_SITE_SHARE and DAILY_AGENT_SHARE \(its older name\)/],
    [{ DAILY_AGENT_SHARE: 'x' }, /^DAILY_SITE_SHARE must be a whole number/],
  ];
  for (const [env, pattern] of cases) {
    assert.throws(
      () => loadConfig(env),
      (err: Error) => err instanceof ConfigError && pattern.test(err.message),
      JSON.stringify(env),
    );
  }
  assert.equal(loadConfig({ DAILY_AGENT_SHARE: '7' }).dailySiteShare, 7, 'the older name still works');
  assert.equal(loadConfig({ DAILY_SITE_SHARE: '8', DAILY_AGENT_SHARE: '8' }).dailySiteShare, 8, 'both, the same');
  assert.equal(
    loadConfig({ PUBLIC_BASE_URL: 'https://agents.example.org/' }).publicBaseUrl,
    'https://agents.example.org',
  );
});

test('a PUBLIC_BASE_URL with a path stops start-up with one line: the service is served at the root', async () => {
  const result = await runNode([MAIN], { env: { PORT: '0', PUBLIC_BASE_URL: 'https://host.test/contact' } });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^Cannot start: PUBLIC_BASE_URL must be an origin alone.*"https:\/\/host\.test\/contact/);
  assert.match(result.stderr, /served at the root of its host/);
  assert.equal(result.stderr.trim().split('\n').length, 1);
});

test('a bad PORT stops start-up with one clear line and a non-zero exit', async () => {
  const result = await runNode([MAIN], { env: { PORT: 'eighty' } });
  assert.equal(result.code, 1);
  assert.equal(result.stderr.trim(), 'Cannot start: PORT must be a whole number from 0 to 65535, got "eighty"');
  assert.equal(result.stdout, '');
});

test('an unwritable DB_PATH stops start-up with one clear line', async (t) => {
  const dir = tempDir(t);
  const blocker = path.join(dir, 'a-file');
  writeFileSync(blocker, 'not a folder');
  const result = await runNode([MAIN], { env: { PORT: '0', DB_PATH: path.join(blocker, 'service.db') } });
  assert.equal(result.code, 1);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1);
  assert.match(lines[0] as string, /^Cannot start: the database at DB_PATH cannot be opened: /);
});

test('a malformed listings file stops start-up naming the listing and the field', async (t) => {
  const dir = tempDir(t);
  const listings = path.join(dir, 'listings.json');
  writeFileSync(listings, JSON.stringify([{ slug: 'broken', kind: 'robot', name: 'Broken' }]));
  const result = await runNode([MAIN], {
    env: { PORT: '0', DB_PATH: path.join(dir, 'x.db'), LISTINGS_PATH: listings },
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /listing 0 \("broken"\): kind must be one of community, tool, got "robot"/);
  assert.match(result.stderr, /listing 0 \("broken"\): docs_url is required/);
  assert.equal(result.stderr.trim().split('\n').length, 1);

  writeFileSync(listings, '[{"slug": ');
  const truncated = await runNode([MAIN], {
    env: { PORT: '0', DB_PATH: path.join(dir, 'y.db'), LISTINGS_PATH: listings },
  });
  assert.equal(truncated.code, 1);
  assert.match(truncated.stderr, /listings\.json is not valid JSON/);
});

test('a Node without node:sqlite is refused with one line, before anything is created', async (t) => {
  const dbPath = path.join(tempDir(t), 'never.db');
  // A resolve hook stands in for an older Node: node:sqlite cannot be found.
  const hook =
    "import { registerHooks } from 'node:module'; " +
    'registerHooks({ resolve(specifier, context, next) { ' +
    "if (specifier === 'node:sqlite') throw new Error('no such module'); " +
    'return next(specifier, context); } });';
  const result = await runNode(['--import', `data:text/javascript,${encodeURIComponent(hook)}`, MAIN], {
    env: { PORT: '0', DB_PATH: dbPath },
  });
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr.trim(),
    `Cannot start: Node ${process.version} has no node:sqlite; run npm install, then npm start, which use Node 24`,
  );
  assert.equal(existsSync(dbPath), false);
});

test('a port already in use stops start-up with one line and leaves no new database file', async (t) => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.after(() => holder.close());
  const dbPath = path.join(tempDir(t), 'untouched.db');
  const port = String((holder.address() as net.AddressInfo).port);
  const result = await runNode([MAIN], { env: { PORT: port, DB_PATH: dbPath } });
  assert.equal(result.code, 1);
  assert.match(result.stderr.trim(), /^Cannot start: the port is already in use \(.*\); set PORT to a free one$/);
  assert.equal(existsSync(dbPath), false);
});

test('a database from a newer release is refused at start', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'future.db');
  const db = new DatabaseSync(dbPath);
  db.exec('PRAGMA user_version = 99');
  db.close();
  const result = await runNode([MAIN], { env: { PORT: '0', DB_PATH: dbPath } });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /schema is version 99, newer than this code knows/);
});

test('start-up says in one line that it migrated the database, and says nothing when it did not', async (t) => {
  const dbPath = path.join(tempDir(t), 'older.db');
  const older = new DatabaseSync(dbPath);
  migrate(older, MIGRATIONS.slice(0, MIGRATIONS.length - 1)); // as the last release left it
  older.close();
  const printed = async () => {
    const server = await startServerProcess(t, { DB_PATH: dbPath });
    await server.stop('SIGTERM');
    return server.output().split('\n');
  };
  const migrating = await printed();
  const from = MIGRATIONS.length - 1;
  const said = `Migrated the database from schema ${from} to ${MIGRATIONS.length}.`;
  assert.deepEqual(migrating.filter((line) => /migrat/i.test(line)), [said]);
  assert.equal(migrating.indexOf(said), 1, 'right after the line with the URL');
  assert.deepEqual((await printed()).filter((line) => /migrat/i.test(line)), [], 'nothing to migrate: nothing said');
});

test('npm start prints one line with the URL, serves, and exits 0 on SIGTERM', async (t) => {
  const server = await startServerProcess(t, { DB_PATH: path.join(tempDir(t), 's.db') });
  assert.match(server.output(), /^Listening on http:\/\/127\.0\.0\.1:\d+ \(database .*s\.db\)\n$/);
  const response = await fetch(`${server.url}/api/v1/directory?limit=1`);
  assert.equal(response.status, 200);
  assert.equal(((await response.json()) as { total: number }).total, 12);
  assert.equal(await server.stop('SIGTERM'), 0);
});

test('a SIGTERM sent the moment the start-up line is read still closes gracefully, with every line said', async (t) => {
  // Node kills a process at once on a signal it has no listener for: the listeners must exist
  // before the line that tells whoever waits for it that the server is up.
  const main = readFileSync(path.join(ROOT, MAIN), 'utf8');
  assert.ok(main.indexOf("process.once('SIGTERM'") < main.indexOf('console.log(`Listening on'), 'listeners first');
  for (let run = 0; run < 3; run++) {
    const server = await startServerProcess(t, { DB_PATH: path.join(tempDir(t), `s${run}.db`) });
    assert.equal(await server.stop('SIGTERM'), 0, server.output());
    assert.match(server.output(), /^SIGTERM received: finishing requests in flight/m);
  }
});

test('SIGINT also shuts down gracefully, letting a request in flight finish', async (t) => {
  const server = await startServerProcess(t, { DB_PATH: path.join(tempDir(t), 's.db') });
  const { hostname, port } = new URL(server.url);
  const body = JSON.stringify({ message: 'in flight during shutdown' });
  // Headers now, the body after the signal: the request is in flight when SIGINT lands.
  const socket = net.connect(Number(port), hostname);
  await new Promise((resolve) => socket.on('connect', resolve));
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  socket.write(
    `POST /api/v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `Idempotency-Key: in-flight-key-1\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await waitUntil(() => answer.startsWith('HTTP/1.1 100 Continue'), 'the server is reading the body');
  const stopped = server.stop('SIGINT');
  await waitUntil(() => server.output().includes('SIGINT received'), 'the server took the signal');
  socket.end(body);
  assert.equal(await stopped, 0);
  assert.match(answer, /HTTP\/1\.1 201 /);
  assert.match(server.output(), /SIGINT received/);
});

// Root ignores file permissions: as root, the server is run as the unprivileged user `nobody`
// (uid 65534), so that the permission is really in its way, in CI too.
const UNPRIVILEGED = process.getuid?.() === 0 ? 65534 : undefined;

test('a read-only database file stops start-up instead of failing later', async (t) => {
  const dir = tempDir(t);
  chmodSync(dir, 0o755); // the unprivileged user may enter the folder, and no more
  const dbPath = path.join(dir, 'ro.db');
  new DatabaseSync(dbPath).close();
  chmodSync(dbPath, 0o444);
  const result = await runNode([MAIN], { env: { PORT: '0', DB_PATH: dbPath }, uid: UNPRIVILEGED });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /^Cannot start: the database at DB_PATH cannot be opened: .*(read-?only|permission)/im);
});

test('a NOTIFY_COMMAND that does not exist or cannot be run stops start-up, naming it', async (t) => {
  const dir = tempDir(t);
  const notExecutable = path.join(dir, 'notify.sh');
  writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
  for (const command of [path.join(dir, 'missing.sh'), notExecutable, 'no-such-notifier-on-the-path']) {
    const result = await runNode([MAIN], {
      env: { PORT: '0', DB_PATH: path.join(dir, 'service.db'), NOTIFY_COMMAND: command },
      uid: UNPRIVILEGED,
    });
    assert.equal(result.code, 1, command);
    assert.match(result.stderr, /^Cannot start: NOTIFY_COMMAND names .*, which does not exist or this user cannot/m);
    assert.ok(!existsSync(path.join(dir, 'service.db')), 'nothing was created');
  }
});
