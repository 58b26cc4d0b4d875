// The servers a benchmark runs: each launched as `npm start` launches the service, pinned to
// core 0 (wrk runs on core 1), and measured from /proc: its CPU time and its peak memory.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export const canPin = !spawnSync('taskset', ['-c', '0', 'true']).error;

/**
 * Both servers are launched exactly as `npm start` launches the service: the same
 * environment assignments and Node flags, read from package.json, so that the ratio
 * compares the application code and nothing else.
 */
export function startCommand(root = ROOT): { env: Record<string, string>; nodeArgs: string[] } {
  const words = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0]?.includes('=')) {
    const [name, value] = (words.shift() as string).split('=') as [string, string];
    env[name] = value;
  }
  if (words.shift() !== 'node') throw new Error('npm start is expected to run node');
  return { env, nodeArgs: words.slice(0, -1) }; // the last word is the script
}
export const launch = startCommand();
export const pinned = (core: number, command: string[]) =>
  canPin ? ['taskset', '-c', String(core), ...command] : command;

export interface Server {
  readonly url: string;
  readonly child: ChildProcess;
  readonly startupMs: number;
  peakRssKb(): number;
  /** user + system CPU time consumed so far, in ms */
  cpuMs(): number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

// Every server still running when the benchmark exits, on an error too: none is left pinned to core 0.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a server on core 0 and measures the time to its first 200 from /health (or /). */
export async function startServer(script: string, env: Record<string, string>, readyPath: string): Promise<Server> {
  const port = await freePort();
  const [command, ...args] = pinned(0, [process.execPath, ...launch.nodeArgs, script]) as [string, ...string[]];
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...launch.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(url + readyPath)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (performance.now() - started > 10_000) throw new Error(`${script} did not answer ${readyPath} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const startupMs = performance.now() - started;
  return {
    url,
    child,
    startupMs,
    peakRssKb: () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0),
    cpuMs: () => {
      // utime and stime are fields 14 and 15, in clock ticks of 10 ms; taskset execs node, so the pid is node's
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(); // it has already gone
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The same server as `count` processes, started one after another. A process's speed is not
 * only its code's: on the VM this is developed on, about one process in four of the same build
 * ran some 30 % slower in every round of its life, for a cause outside the code (the VM shows
 * no hardware counters to tell which), so one process per side measured that luck as often as
 * the code (docs/performance.md).
 */
export async function startServers(
  count: number,
  script: string,
  env: Record<string, string>,
  readyPath: string,
): Promise<Server[]> {
  const servers: Server[] = [];
  for (let i = 0; i < count; i++) servers.push(await startServer(script, env, readyPath));
  return servers;
}
