// Ten thousand waiting polls at once (`npm run bench -- --only waits`): the service's memory
// for them, its CPU while they wait, and the time from the owner's commit to their answers.
// The owner replies to every conversation in one transaction, as one commit, from another
// connection, as the owner script would.

import { hash, randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { ownerReply } from '../../src/rules/conversations.ts';
import { Store } from '../../src/store/store.ts';

const METRICS_TOKEN = 'bench-'.padEnd(40, 'x');

interface Measured {
  readonly polls: number;
  readonly idleRssMiB: number;
  readonly waitingRssMiB: number;
  readonly bytesPerPoll: number;
  readonly cpuPercentWhileWaiting: number;
  readonly commitToAnswerMs: { median: number; p99: number; max: number };
}

/** Conversations with known credentials, written straight into the schema (a seed, not traffic). */
function seed(dbPath: string, count: number): { id: string; token: string }[] {
  const store = new Store(dbPath);
  const insert = store.db.prepare(`INSERT INTO conversations
    (id, token_hash, creation_key, status, metadata, created_at, expires_at, last_seq, latest_owner_seq, changed_at)
    VALUES (?, unhex(?), ?, 'open', '{}', ?, ?, 1, 0, ?)`);
  const message = store.db.prepare(
    "INSERT INTO messages (conversation_id, seq, author, message, created_at) VALUES (?, 1, 'client', 'waiting', ?)",
  );
  const now = new Date().toISOString();
  const later = new Date(Date.now() + 86_400_000).toISOString();
  const seeded = [];
  store.db.exec('BEGIN');
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const token = randomBytes(32).toString('hex');
    insert.run(id, hash('sha256', token), `bench-wait-${i}`, now, later, now);
    message.run(id, now);
    seeded.push({ id, token });
  }
  store.db.exec('COMMIT');
  store.close();
  return seeded;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const status = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function waitingPolls(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return Number(/^agent_contact_waiting_polls (\d+)$/m.exec(await response.text())?.[1] ?? 0);
}

/** Starts the service as `npm start` starts it, on the seeded database; resolves once /health answers. */
async function startWaitsService(options: MeasureOptions, dbPath: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [...options.nodeArgs, 'src/main.ts'], {
    cwd: options.root,
    env: {
      ...process.env,
      ...options.env,
      DB_PATH: dbPath,
      PORT: String(port),
      METRICS_TOKEN,
      DAILY_MESSAGE_LIMIT: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    const up = await fetch(`${url}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, url };
}

/** One poll waiting 55 s per conversation; `answeredAt` gets the moment each is answered. */
function holdPolls(url: string, conversations: { id: string; token: string }[]) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const answeredAt: number[] = [];
  const answers = conversations.map(
    ({ id, token }) =>
      new Promise<void>((resolve, reject) => {
        const request = http.get(`${url}/api/v1/conversations/${id}/updates?after=1&wait=55`, {
          agent,
          headers: { authorization: `Bearer ${token}` },
        });
        request.on('response', (response) => {
          response.resume().on('end', () => {
            answeredAt.push(performance.now());
            resolve();
          });
        });
        request.on('error', reject);
      }),
  );
  return { agent, answeredAt, answers };
}

interface MeasureOptions {
  root: string;
  work: string;
  polls: number;
  nodeArgs: readonly string[];
  env: Record<string, string>;
}

/** Runs the measurement against a service started as `npm start` starts it. */
export async function measureWaits(options: MeasureOptions): Promise<Measured> {
  const dbPath = path.join(options.work, 'waits.db');
  new Store(dbPath).close(); // the schema, before the seed
  const conversations = seed(dbPath, options.polls);
  const { child, url } = await startWaitsService(options, dbPath);
  try {
    const pid = child.pid as number;
    const idleRss = status(pid, 'VmRSS');
    const { agent, answeredAt, answers } = holdPolls(url, conversations);
    while ((await waitingPolls(url)) < options.polls) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 1000)); // settle
    const waitingRss = status(pid, 'VmRSS');
    const cpuBefore = cpuMs(pid);
    const waitedFrom = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const cpuPercent = ((cpuMs(pid) - cpuBefore) / (performance.now() - waitedFrom)) * 100;

    const owner = new Store(dbPath);
    owner.transaction(() => {
      for (const { id } of conversations) ownerReply(owner, id, 'An answer.', { at: Date.now(), dailyMaximum: 0 });
    });
    const committed = performance.now();
    owner.close();
    await Promise.all(answers);
    const delays = answeredAt.map((at) => at - committed).sort((a, b) => a - b);
    agent.destroy();
    return {
      polls: options.polls,
      idleRssMiB: idleRss / 1024,
      waitingRssMiB: waitingRss / 1024,
      bytesPerPoll: ((waitingRss - idleRss) * 1024) / options.polls,
      cpuPercentWhileWaiting: cpuPercent,
      commitToAnswerMs: { median: percentile(delays, 0.5), p99: percentile(delays, 0.99), max: delays.at(-1)! },
    };
  } finally {
    child.kill('SIGTERM');
  }
}
