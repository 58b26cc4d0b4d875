// Running the owner script from tests as the owner does (npm run -s owner --), and `watch`.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { TestContext } from 'node:test';
import { ROOT, runOwner, waitUntil } from './helpers.ts';

/** Runs the owner script as a child process against the service's database. */
export const owner = (
  service: { dbPath: string },
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
) => runOwner(service.dbPath, args, options);

export function assertFailsWith(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) {
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trim().split('\n').length, 1, `one line on stderr: ${result.stderr}`);
}

/**
 * `npm run -s owner -- watch`, as the owner starts it at a terminal: in a process group of
 * its own, so that Ctrl-C reaches npm and the script alike, as a terminal sends it.
 */
export function startWatch(t: TestContext, dbPath: string) {
  const child = spawn('npm', ['run', '-s', 'owner', '--', 'watch'], {
    cwd: ROOT,
    env: { ...process.env, DB_PATH: dbPath },
    detached: true,
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  });
  let output = '';
  let errors = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  return {
    output: () => output,
    errors: () => errors,
    waitFor: (pattern: RegExp) => waitUntil(() => pattern.test(output), `watch printed ${pattern}`),
    /** Ctrl-C, and the wait until every process of the group has closed its output. */
    interrupt: () => {
      process.kill(-(child.pid as number), 'SIGINT');
      return closed;
    },
  };
}
