// Crash safety: concurrent openings and follow-ups, the server killed with SIGKILL at
// random moments, restarted on the same database each time. Every acknowledged POST must
// be stored exactly once, replays must create nothing new, and the file must stay sound.
// Covers: src/store/store.ts, src/store/group-commit.ts, src/rules/conversations.ts.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { seededRandom } from '../random.ts';
import { request, startServerProcess, tempDir, waitUntil } from '../helpers.ts';

const ROUNDS = 5;
const WORKERS = 8;
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);

type Credential = { id: string; token: string };

interface Attempt {
  readonly kind: 'open' | 'follow';
  readonly key: string;
  readonly message: string;
  readonly conversation?: Credential;
  /** undefined: the answer never came (killed mid-request), so the outcome is unknown */
  status?: number;
  seq?: number;
}

/** Everything the workers tried over all rounds, and the conversations whose opening was acknowledged. */
interface Run {
  readonly random: () => number;
  readonly attempts: Attempt[];
  readonly conversations: Credential[];
  counter: number;
}

const acknowledgedIn = (run: Run) => run.attempts.filter((a) => a.status !== undefined && a.status < 300);

async function send(url: string, attempt: Attempt) {
  const path = attempt.conversation
    ? `/api/v1/conversations/${attempt.conversation.id}/messages`
    : '/api/v1/conversations';
  return request(url, 'POST', path, {
    token: attempt.conversation?.token,
    key: attempt.key,
    json: { message: attempt.message },
  });
}

/** One write by a worker: mostly a follow-up to a conversation already opened, else an opening. */
async function attemptOneWrite(run: Run, url: string, round: number) {
  run.counter += 1;
  const conversation =
    run.conversations.length > 0 && run.random() < 0.7
      ? run.conversations[Math.floor(run.random() * run.conversations.length)]
      : undefined;
  const attempt: Attempt = {
    kind: conversation ? 'follow' : 'open',
    key: `crash-${SEED}-${run.counter}`,
    message: `message ${run.counter} of round ${round}`,
    conversation,
  };
  run.attempts.push(attempt);
  try {
    const response = await send(url, attempt);
    attempt.status = response.status;
    if (attempt.kind === 'open' && response.status === 201) {
      run.conversations.push({ id: response.body.id, token: response.body.access_token });
    }
    if (attempt.kind === 'follow' && response.status < 300) attempt.seq = response.body.message.seq;
  } catch {
    // killed while this request was in flight
  }
}

/** Starts the server, lets the workers write at once, and kills it with SIGKILL in the middle of it. */
async function crashRound(t: TestContext, env: Record<string, string>, run: Run, round: number) {
  const server = await startServerProcess(t, env);
  let killed = false;
  const worker = async () => {
    while (!killed) await attemptOneWrite(run, server.url, round);
  };
  const workers = Array.from({ length: WORKERS }, worker);
  // Killed after a random number of acknowledged writes, whatever the machine's speed.
  const killAfter = acknowledgedIn(run).length + 15 + Math.floor(run.random() * 40);
  await waitUntil(
    () => acknowledgedIn(run).length >= killAfter,
    `${killAfter} writes were acknowledged (seed ${SEED})`,
    30_000,
  );
  killed = true;
  await server.stop('SIGKILL');
  await Promise.all(workers);
}

async function history(url: string, conversation: Credential) {
  const items: { seq: number; message: string }[] = [];
  let after = 0;
  for (;;) {
    const page = await request(
      url,
      'GET',
      `/api/v1/conversations/${conversation.id}/messages?after=${after}&limit=100`,
      { token: conversation.token },
    );
    assert.equal(page.status, 200);
    items.push(...page.body.items);
    if (!page.body.has_more) return items;
    after = page.body.next_after;
  }
}

/** Each history counts 1, 2, 3… holds no message twice, and holds every acknowledged follow-up at its seq. */
async function assertStoredExactlyOnce(url: string, run: Run, acknowledged: Attempt[]) {
  for (const conversation of run.conversations) {
    const items = await history(url, conversation);
    assert.deepEqual(
      items.map((m) => m.seq),
      items.map((_, i) => i + 1),
      `seq has no gap or repeat (seed ${SEED})`,
    );
    const texts = items.map((m) => m.message);
    assert.equal(new Set(texts).size, texts.length, `no message is stored twice (seed ${SEED})`);
    for (const attempt of acknowledged.filter((a) => a.conversation?.id === conversation.id)) {
      assert.equal(
        items.find((m) => m.seq === attempt.seq)?.message,
        attempt.message,
        `acknowledged follow-up stored (seed ${SEED})`,
      );
    }
  }
}

/** Replays every write: an acknowledged one creates nothing, one cut off creates at most once. */
async function assertReplaysCreateNothingTwice(url: string, run: Run, acknowledged: Attempt[], unknown: Attempt[]) {
  for (const attempt of acknowledged.filter((a) => a.kind === 'open')) {
    const replay = await send(url, attempt);
    assert.equal(replay.status, 409, `a replayed acknowledged opening creates nothing (seed ${SEED})`);
  }
  for (const attempt of acknowledged.filter((a) => a.kind === 'follow')) {
    const replay = await send(url, attempt);
    assert.equal(replay.status, 200, `a replayed acknowledged follow-up is a duplicate (seed ${SEED})`);
    assert.equal(replay.body.message.seq, attempt.seq);
  }
  for (const attempt of unknown) {
    const first = await send(url, attempt);
    const expected = attempt.kind === 'open' ? [201, 409] : [200, 201];
    assert.ok(expected.includes(first.status), `unknown outcome replays as ${first.status} (seed ${SEED})`);
    const second = await send(url, attempt);
    assert.equal(
      second.status,
      attempt.kind === 'open' ? 409 : 200,
      `a second replay creates nothing (seed ${SEED})`,
    );
  }
  for (const conversation of run.conversations) {
    const texts = (await history(url, conversation)).map((m) => m.message);
    assert.equal(new Set(texts).size, texts.length, `still no message twice after the replays (seed ${SEED})`);
  }
}

test(
  `acknowledged writes survive SIGKILL at random moments exactly once (seed ${SEED})`,
  { timeout: 60_000 },
  async (t) => {
    const dbPath = path.join(tempDir(t), 'service.db');
    const env = {
      DB_PATH: dbPath,
      DAILY_MESSAGE_LIMIT: '0',
      CREATE_LIMIT_PER_HOUR: '0',
      REQUEST_LIMIT_PER_MINUTE: '0',
    };
    const run: Run = { random: seededRandom(SEED), attempts: [], conversations: [], counter: 0 };
    for (let round = 0; round < ROUNDS; round++) await crashRound(t, env, run, round);

    const server = await startServerProcess(t, env);
    const acknowledged = acknowledgedIn(run);
    const unknown = run.attempts.filter((a) => a.status === undefined);
    t.diagnostic(
      `${run.attempts.length} attempts: ${acknowledged.length} acknowledged, ` +
        `${unknown.length} cut off by SIGKILL, ${run.conversations.length} conversations`,
    );
    assert.ok(acknowledged.length > 50, `${acknowledged.length} acknowledged writes (seed ${SEED})`);
    assert.ok(
      run.attempts.every((a) => a.status === undefined || a.status === 201),
      `only 201s or no answer (seed ${SEED})`,
    );
    await assertStoredExactlyOnce(server.url, run, acknowledged);
    await assertReplaysCreateNothingTwice(server.url, run, acknowledged, unknown);

    assert.equal(await server.stop('SIGTERM'), 0);
    const db = new DatabaseSync(dbPath, { readOnly: true });
    t.after(() => db.close());
    assert.equal((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
  },
);
