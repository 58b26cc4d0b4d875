// Files private to the service's user, whatever the umask: the database folder the service
// creates is 0700; the database, its WAL and shared-memory files and every backup are 0600.

import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openConversation, runOwner, startTestService, tempDir } from '../helpers.ts';

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

test('under umask 022 the database folder is 0700, and the database, WAL, SHM and backups 0600', async (t) => {
  // the usual umask: files readable by everyone unless the service says otherwise
  const previous = process.umask(0o022);
  t.after(() => process.umask(previous));
  const dir = path.join(tempDir(t), 'made-by-the-service');
  const service = await startTestService(t, { dir: path.join(dir, 'inner') });
  await openConversation(service.url);
  assert.equal(mode(path.dirname(service.dbPath)), '700');
  for (const suffix of ['', '-wal', '-shm']) assert.equal(mode(service.dbPath + suffix), '600', `service.db${suffix}`);
  const backup = path.join(tempDir(t), 'backup.db');
  const ran = await runOwner(service.dbPath, ['backup', backup]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(mode(backup), '600');
});
