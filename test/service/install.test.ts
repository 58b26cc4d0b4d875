// The production install as docs/deployment.md gives it: the sources, `npm ci --omit=dev` and a
// Node 24 on the PATH, nothing else. It holds no test tool, serves, and the owner script runs
// from any folder with `npm --prefix`.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SERVICE_VERSION } from '../../src/base/version.ts';
import { ROOT, runCommand, tempDir, waitUntil } from '../helpers.ts';

/** The files a clone holds (committed or not yet), copied as a fresh checkout would have them. */
function copyOfTheSources(into: string): void {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\n')
    .filter((file) => file !== '' && existsSync(path.join(ROOT, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(into, file));
  }
}

function bytesUnder(folder: string): number {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0);
}

test('a production install holds no test tool, serves, and the owner script runs from any folder', async (t) => {
  const app = path.join(tempDir(t), 'agent-contact');
  copyOfTheSources(app);
  // The machine's Node 24 first on the PATH, as the deployment guide installs it.
  const env = { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, npm_config_update_notifier: 'false' };
  const install = await runCommand('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: app, env });
  assert.equal(install.code, 0, install.stderr);
  const modules = path.join(app, 'node_modules');
  assert.ok(!existsSync(modules) || readdirSync(modules).every((name) => name.startsWith('.')), 'no package');
  assert.ok(bytesUnder(app) < 8 * 1024 * 1024, `the install is the sources only: ${bytesUnder(app)} bytes`);

  const dbPath = path.join(app, 'data', 'service.db');
  const server = spawn('npm', ['start'], {
    cwd: app,
    env: { ...process.env, ...env, PORT: '0', DB_PATH: dbPath },
    detached: true,
  });
  t.after(() => {
    if (server.exitCode === null) process.kill(-(server.pid as number), 'SIGKILL');
  });
  let output = '';
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await waitUntil(() => /^Listening on \S+/m.test(output), 'the server started', 20_000);
  const base = /^Listening on (\S+)/m.exec(output)?.[1] as string;
  const health = await fetch(`${base}/api/v1/health`);
  assert.equal(health.status, 200);
  assert.equal(((await health.json()) as { version: string }).version, SERVICE_VERSION);

  const elsewhere = tempDir(t);
  const stats = await runCommand('npm', ['--prefix', app, 'run', '-s', 'owner', '--', 'stats'], {
    cwd: elsewhere,
    env: { ...env, DB_PATH: dbPath },
  });
  assert.equal(stats.code, 0, stats.stderr);
  assert.match(stats.stdout, /^Today \(\d{4}-\d\d-\d\d UTC\): 0 messages of 500/);
  const backup = await runCommand('npm', ['--prefix', app, 'run', '-s', 'owner', '--', 'backup', 'copy.db'], {
    cwd: elsewhere,
    env: { ...env, DB_PATH: dbPath },
  });
  assert.equal(backup.code, 0, backup.stderr);
  assert.ok(existsSync(path.join(elsewhere, 'copy.db')), 'a file the owner names is where the owner typed it');
});
