// docs/deployment.md's way back to a release without `restore`, run as written (as far as a test
// can: the paths are a temp folder's, and no sudo): with the service stopped, the backup taken
// before the upgrade is put in place of the database, and its -wal and -shm removed. The code
// then started is this one, on a backup of an earlier schema, which it migrates.

import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { asOnTheMachine, guideBlock, type Machine } from '../deployment-guide.ts';
import { openConversation, request, ROOT, runCommand, runOwner, startServerProcess, tempDir } from '../helpers.ts';
import { asOlderRelease } from '../older-schema.ts';

/** The commands of the guide's rollback for a release without restore that touch the database files. */
function rollbackSteps(machine: Machine): string[] {
  const block = guideBlock('If it has no `restore`');
  const steps = block.filter((line) => / (install|rm -f) /.test(` ${line.replace(/^sudo /, '')}`));
  assert.equal(steps.length, 2, 'the guide installs the backup and removes -wal and -shm');
  return steps.map((line) => asOnTheMachine(line, machine));
}

test("the guide's rollback without restore brings back exactly the backup taken before the upgrade", async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'service.db');
  const before = await startServerProcess(t, { DB_PATH: dbPath });
  const kept = await openConversation(before.url, { message: 'before the upgrade' });
  const backup = path.join(dir, 'before-upgrade.db');
  assert.equal((await runOwner(dbPath, ['backup', backup])).code, 0);
  writeFileSync(path.join(dir, 'before-upgrade.backup'), `${backup}\n`); // as the guide's upgrade notes it
  asOlderRelease(backup); // the backup an earlier release took: one schema version older
  const later = await openConversation(before.url, { message: 'after the upgrade' });
  await before.stop('SIGKILL'); // as a crash would: what came after the backup may still be in the -wal
  assert.ok(existsSync(`${dbPath}-wal`), 'a -wal is left beside the database');

  for (const step of rollbackSteps({ app: ROOT, backups: dir, dbPath })) {
    const ran = await runCommand('bash', ['-c', step]);
    assert.equal(ran.code, 0, `${step}: ${ran.stderr}`);
  }
  assert.equal(statSync(dbPath).mode & 0o777, 0o600, 'private, as the guide installs it');
  const after = await startServerProcess(t, { DB_PATH: dbPath });
  const read = (conversation: { id: string; token: string }) =>
    request(after.url, 'GET', `/api/v1/conversations/${conversation.id}`, { token: conversation.token });
  assert.equal((await read(kept)).status, 200, 'the backup is there');
  assert.equal((await read(later)).status, 401, 'and nothing written after it');
  await after.stop('SIGTERM');
});
