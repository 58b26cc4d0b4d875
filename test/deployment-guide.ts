// docs/deployment.md's commands as a test runs them: its own blocks, read from the guide, with the
// machine's folders in temp folders, no sudo (the test's user owns everything), this Node for
// /opt/node-24, and systemctl and curl given to the test, which runs the service as a child process.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCommand } from './helpers.ts';

const GUIDE = readFileSync(path.join(ROOT, 'docs/deployment.md'), 'utf8');

/** Where the guide puts things, as the test has them. */
export interface Machine {
  /** /srv/agent-contact: the checkout */
  readonly app: string;
  /** /var/backups/agent-contact */
  readonly backups: string;
  /** /var/lib/agent-contact/service.db */
  readonly dbPath: string;
}

/** What the test does for the lines of the guide that a shell in a test cannot. */
export interface Service {
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `curl …/health`: the test asks the running service. */
  health(): Promise<void>;
}

/** The lines of the first ```sh block after `marker` in the guide. */
export function guideBlock(marker: string): string[] {
  const at = GUIDE.indexOf(marker);
  assert.notEqual(at, -1, `docs/deployment.md says "${marker}"`);
  const block = /```sh\n([^]*?)```/.exec(GUIDE.slice(at))?.[1];
  assert.ok(block, `a shell block follows "${marker}"`);
  return block.trimEnd().split('\n');
}

/** A line of the guide with the machine's folders, without sudo, with the Node that runs the tests. */
export function asOnTheMachine(line: string, machine: Machine): string {
  return line
    .replaceAll('sudo -u agent-contact ', '')
    .replaceAll('sudo ', '')
    .replaceAll(' -o agent-contact -g agent-contact', '') // the test's own user owns the files
    .replaceAll('/var/lib/agent-contact/service.db', machine.dbPath)
    .replaceAll('/var/backups/agent-contact', machine.backups)
    .replaceAll('/srv/agent-contact', machine.app)
    .replaceAll('/opt/node-24/bin', path.dirname(process.execPath));
}

/** The owner's shell function of section 4, as the shell on the machine would have it. */
function ownerFunction(machine: Machine): string {
  const lines = guideBlock('## 4. Answer from the shell');
  const end = lines.indexOf('}');
  assert.ok(lines[0]?.startsWith('owner() {') && end > 0, 'section 4 defines owner()');
  return lines
    .slice(0, end + 1)
    .map((line) => asOnTheMachine(line, machine))
    .join('\n');
}

const SERVICE_LINE = /^sudo systemctl (stop|start|restart) agent-contact$/;
const HEALTH_LINE = /^curl -s http:\/\/127\.0\.0\.1:8080\/api\/v1\/health\b/;

/**
 * Runs a block of the guide on the machine: its shell lines in bash (-e, pipefail) from the
 * checkout, each run of them together so that a variable set in one line is there in the next;
 * systemctl and curl by the test. Fails naming the line that failed.
 */
export async function runGuide(lines: readonly string[], machine: Machine, service: Service): Promise<void> {
  let shell: string[] = [];
  const flush = async () => {
    if (shell.length === 0) return;
    const script = `set -eo pipefail\n${ownerFunction(machine)}\n${shell.join('\n')}`;
    const ran = await runCommand('bash', ['-c', script], { cwd: machine.app, timeoutMs: 60_000 });
    assert.equal(ran.code, 0, `${shell.join('\n')}\n${ran.stdout}\n${ran.stderr}`);
    shell = [];
  };
  for (const line of lines) {
    const action = SERVICE_LINE.exec(line)?.[1];
    if (action === undefined && !HEALTH_LINE.test(line)) {
      shell.push(asOnTheMachine(line, machine));
      continue;
    }
    await flush();
    if (action === 'stop' || action === 'restart') await service.stop();
    if (action === 'start' || action === 'restart') await service.start();
    if (action === undefined) await service.health();
  }
  await flush();
}
