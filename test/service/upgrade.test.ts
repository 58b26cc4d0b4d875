// docs/deployment.md's upgrade and way back, run as written (test/deployment-guide.ts says how a
// test stands in for sudo, systemd and the machine's folders) from each release in CHANGELOG.md to
// this code and back, then up again from the commit the rollback checked out.
//
// The releases are read from this repository's history, found as the guide tells an owner to find
// them (the commit each CHANGELOG entry names; the tag, where tags were fetched, must be on it), so
// the test runs in any clone made with `git clone`, with or without tags. A shallow clone has no
// such history (.ci/run fetches it when it can): there these tests are skipped, saying why and how to
// fetch it, since they cannot run there. The owner's remote is a repository in a
// temp folder whose main is this working tree (committed there, on top of HEAD, so that what is
// tested is what is on disk) and which borrows this repository's objects: nothing here is written.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test, type TestContext } from 'node:test';
import { SERVICE_VERSION } from '../../src/base/version.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { guideBlock, runGuide, type Machine, type Service } from '../deployment-guide.ts';
import { openConversation, request, ROOT, startServerProcess, tempDir, waitUntil } from '../helpers.ts';
import type { ServerProcess } from '../helpers.ts';
import { git, historyMissing, releaseCommit, releases, taggedCommit, type Release } from '../releases.ts';

const UPGRADE = guideBlock('So an upgrade takes a backup first');
const ROLLBACK_WITH_RESTORE = guideBlock('If the release you go back to has `restore`');
const ROLLBACK_WITHOUT_RESTORE = guideBlock('If it has no `restore`');

const skip = historyMissing() ?? false;

test('every release in the CHANGELOG is found at its commit, with its version; its tag is on it', { skip }, () => {
  for (const release of releases()) {
    const commit = releaseCommit(release);
    const manifest = JSON.parse(git(['show', `${commit}:package.json`])) as { version: string };
    assert.equal(manifest.version, release.version, `${release.commit} is ${release.version}`);
    const tagged = taggedCommit(release);
    if (tagged !== null) assert.equal(tagged, commit, `${release.tag} is on the commit the CHANGELOG names`);
  }
});

/** The owner's remote: main is this working tree as a commit on top of HEAD; this repository's tags. */
function ownersRemote(dir: string): string {
  const remote = path.join(dir, 'remote.git');
  git(['init', '-q', '--bare', remote]);
  const objects = path.resolve(ROOT, git(['rev-parse', '--git-common-dir']), 'objects');
  writeFileSync(path.join(remote, 'objects/info/alternates'), `${objects}\n`);
  const env = { GIT_DIR: remote, GIT_WORK_TREE: ROOT, GIT_INDEX_FILE: path.join(dir, 'index') };
  const who = { GIT_AUTHOR_NAME: 'test', GIT_AUTHOR_EMAIL: 'test@invalid', GIT_COMMITTER_NAME: 'test' };
  git(['add', '-A'], ROOT, env);
  git(['rm', '-r', '-q', '--cached', '--ignore-unmatch', 'node_modules'], ROOT, env); // a worktree's link to it
  const tree = git(['write-tree'], ROOT, env);
  const main = git(['commit-tree', tree, '-p', git(['rev-parse', 'HEAD']), '-m', 'main'], ROOT, {
    ...env,
    ...who,
    GIT_COMMITTER_EMAIL: 'test@invalid',
  });
  git(['update-ref', 'refs/heads/main', main], ROOT, env);
  git(['symbolic-ref', 'HEAD', 'refs/heads/main'], ROOT, env);
  for (const line of git(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/tags']).split('\n')) {
    if (line !== '') git(['update-ref', ...line.split(' ')], ROOT, env);
  }
  return remote;
}

/** A machine where the owner cloned when `release` was main's newest: on branch main, at its commit. */
function installed(t: TestContext, release: Release): Machine {
  const dir = tempDir(t);
  const machine = {
    app: path.join(dir, 'srv/agent-contact'),
    backups: path.join(dir, 'var/backups/agent-contact'),
    dbPath: path.join(dir, 'var/lib/agent-contact/service.db'),
  };
  git(['clone', '-q', ownersRemote(dir), machine.app]);
  git(['reset', '-q', '--hard', releaseCommit(release)], machine.app);
  mkdirSync(machine.backups, { recursive: true, mode: 0o700 });
  return machine;
}

/** The service as the unit runs it, from the checkout, and what the guide's systemctl and curl do to it. */
function systemd(t: TestContext, machine: Machine) {
  let server: ServerProcess | null = null;
  let printed = '';
  const state = {
    healthVersion: undefined as string | undefined,
    url: () => (server as ServerProcess).url,
    printed: () => printed + (server?.output() ?? ''),
  };
  const service: Service = {
    async start() {
      const env = { DB_PATH: machine.dbPath, LISTINGS_PATH: path.join(machine.app, 'data/listings.json') };
      server = await startServerProcess(t, env, machine.app);
    },
    async stop() {
      assert.equal(await server?.stop('SIGTERM'), 0);
      printed += server?.output() ?? '';
      server = null;
    },
    async health() {
      const answer = await request(state.url(), 'GET', '/api/v1/health');
      assert.equal(answer.status, 200, answer.text);
      state.healthVersion = answer.body.version;
    },
  };
  return { service, state };
}

const schemaOf = (dbPath: string) => {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
};

/** The version a release's /health says: 1.0.0 said none (1.1.0 added it). */
const shownVersion = (release: Release) => (release.version === '1.0.0' ? undefined : release.version);

async function upgradeAndBack(t: TestContext, release: Release): Promise<void> {
  const machine = installed(t, release);
  const { service, state } = systemd(t, machine);
  await service.start();
  await service.health();
  assert.equal(state.healthVersion, shownVersion(release));
  assert.equal(schemaOf(machine.dbPath), release.schema, `${release.version} makes schema ${release.schema}`);
  const kept = await openConversation(state.url(), { message: 'before the upgrade' });
  const read = (conversation: { id: string; token: string }) =>
    request(state.url(), 'GET', `/api/v1/conversations/${conversation.id}`, { token: conversation.token });

  await runGuide(UPGRADE, machine, service);
  const upgradedAt = Date.now();
  assert.equal(state.healthVersion, SERVICE_VERSION, 'the new version runs');
  const migrated = `Migrated the database from schema ${release.schema} to ${MIGRATIONS.length}.`;
  assert.ok(state.printed().split('\n').includes(migrated), `start-up said: ${migrated}`);
  assert.equal((await read(kept)).status, 200, 'what was written before the upgrade is there');
  const later = await openConversation(state.url(), { message: 'after the upgrade' });

  // The guide's two ways back: by the release's own `restore`, or by hand where it has none (1.0.0).
  const hasRestore = git(['ls-tree', '--name-only', releaseCommit(release), 'src/owner/restore.ts']) !== '';
  await runGuide(hasRestore ? ROLLBACK_WITH_RESTORE : ROLLBACK_WITHOUT_RESTORE, machine, service);
  await service.health();
  assert.equal(state.healthVersion, shownVersion(release), 'the release runs again');
  assert.equal(schemaOf(machine.dbPath), release.schema);
  assert.equal((await read(kept)).status, 200, 'the backup is back');
  assert.equal((await read(later)).status, 401, 'and nothing written after it');
  assert.throws(() => git(['symbolic-ref', '-q', 'HEAD'], machine.app), 'the rollback left a detached checkout');

  // The upgrade names its backup by the second: the second upgrade's must be a new file.
  await waitUntil(() => Math.floor(Date.now() / 1000) > Math.floor(upgradedAt / 1000), 'a new second');
  await runGuide(UPGRADE, machine, service);
  assert.equal(state.healthVersion, SERVICE_VERSION, 'upgraded again, from the detached checkout');
  assert.equal((await read(kept)).status, 200);
  const backup = readFileSync(path.join(machine.backups, 'before-upgrade.backup'), 'utf8').trim();
  assert.match(backup, /\/before-upgrade-\d{4}-\d\d-\d\d-\d{6}\.db$/);
  assert.ok(existsSync(backup), 'the backup the rollback would use is the one the backup step wrote');
  await service.stop();
}

for (const release of releases()) {
  test(
    `the guide upgrades ${release.version} to this code, rolls back, and upgrades again from the detached checkout`,
    { timeout: 120_000, skip },
    (t) => upgradeAndBack(t, release),
  );
}
