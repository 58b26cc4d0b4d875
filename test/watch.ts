// `watch` as the owner runs it, for the tests of the owner script.

import { spawn } from 'node:child_process';
import type { TestContext } from 'node:test';
import { ROOT, waitUntil } from './helpers.ts';

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
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return {
    output: () => output,
    waitFor: (pattern: RegExp) => waitUntil(() => pattern.test(output), `watch printed ${pattern}`),
    /** Ctrl-C, and the wait until every process of the group has closed its output. */
    interrupt: () => {
      process.kill(-(child.pid as number), 'SIGINT');
      return closed;
    },
  };
}
