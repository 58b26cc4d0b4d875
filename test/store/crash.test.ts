// Crash safety: concurrent openings and follow-ups, the server killed with SIGKILL at
// random moments, restarted on the same database each time. Every acknowledged POST must
// be stored exactly once, replays must create nothing new, and the file must stay sound.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { seededRandom } from '../random.ts';
import { request, startServerProcess, tempDir, waitUntil } from '../helpers.ts';

const ROUNDS = 5;
const WORKERS = 8;
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);

interface Attempt {
  readonly kind: 'open' | 'follow';
  readonly key: string;
  readonly message: string;
  readonly conversation?: { id: string; token: string };
  /** undefined: the answer never came (killed mid-request), so the outcome is unknown */
  status?: number;
  seq?: number;
}

test(
  `acknowledged writes survive SIGKILL at random moments exactly once (seed ${SEED})`,
  { timeout: 60_000 },
  async (t) => {
    const random = seededRandom(SEED);
    const dbPath = path.join(tempDir(t), 'service.db');
    const env = {
      DB_PATH: dbPath,
      DAILY_MESSAGE_LIMIT: '0',
      CREATE_LIMIT_PER_HOUR: '0',
      REQUEST_LIMIT_PER_MINUTE: '0',
    };
    const attempts: Attempt[] = [];
    const conversations: { id: string; token: string }[] = [];
    let counter = 0;
    const acknowledgedSoFar = () => attempts.filter((a) => a.status !== undefined && a.status < 300).length;

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

    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServerProcess(t, env);
      let killed = false;
      const worker = async () => {
        while (!killed) {
          counter += 1;
          const conversation =
            conversations.length > 0 && random() < 0.7
              ? conversations[Math.floor(random() * conversations.length)]
              : undefined;
          const attempt: Attempt = {
            kind: conversation ? 'follow' : 'open',
            key: `crash-${SEED}-${counter}`,
            message: `message ${counter} of round ${round}`,
            conversation,
          };
          attempts.push(attempt);
          try {
            const response = await send(server.url, attempt);
            attempt.status = response.status;
            if (attempt.kind === 'open' && response.status === 201) {
              conversations.push({ id: response.body.id, token: response.body.access_token });
            }
            if (attempt.kind === 'follow' && response.status < 300) attempt.seq = response.body.message.seq;
          } catch {
            // killed while this request was in flight
          }
        }
      };
      const workers = Array.from({ length: WORKERS }, worker);
      // Killed after a random number of acknowledged writes, whatever the machine's speed.
      const killAfter = acknowledgedSoFar() + 15 + Math.floor(random() * 40);
      await waitUntil(
        () => acknowledgedSoFar() >= killAfter,
        `${killAfter} writes were acknowledged (seed ${SEED})`,
        30_000,
      );
      killed = true;
      await server.stop('SIGKILL');
      await Promise.all(workers);
    }

    const server = await startServerProcess(t, env);
    const acknowledged = attempts.filter((a) => a.status !== undefined && a.status < 300);
    const unknown = attempts.filter((a) => a.status === undefined);
    t.diagnostic(
      `${attempts.length} attempts: ${acknowledged.length} acknowledged, ` +
        `${unknown.length} cut off by SIGKILL, ${conversations.length} conversations`,
    );
    assert.ok(acknowledged.length > 50, `${acknowledged.length} acknowledged writes (seed ${SEED})`);
    assert.ok(
      attempts.every((a) => a.status === undefined || a.status === 201),
      `only 201s or no answer (seed ${SEED})`,
    );

    async function history(conversation: { id: string; token: string }) {
      const items: { seq: number; message: string }[] = [];
      let after = 0;
      for (;;) {
        const page = await request(
          server.url,
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

    for (const conversation of conversations) {
      const items = await history(conversation);
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
    for (const attempt of acknowledged.filter((a) => a.kind === 'open')) {
      const replay = await send(server.url, attempt);
      assert.equal(replay.status, 409, `a replayed acknowledged opening creates nothing (seed ${SEED})`);
    }
    for (const attempt of acknowledged.filter((a) => a.kind === 'follow')) {
      const replay = await send(server.url, attempt);
      assert.equal(replay.status, 200, `a replayed acknowledged follow-up is a duplicate (seed ${SEED})`);
      assert.equal(replay.body.message.seq, attempt.seq);
    }
    for (const attempt of unknown) {
      const first = await send(server.url, attempt);
      const expected = attempt.kind === 'open' ? [201, 409] : [200, 201];
      assert.ok(expected.includes(first.status), `unknown outcome replays as ${first.status} (seed ${SEED})`);
      const second = await send(server.url, attempt);
      assert.equal(
        second.status,
        attempt.kind === 'open' ? 409 : 200,
        `a second replay creates nothing (seed ${SEED})`,
      );
    }
    for (const conversation of conversations) {
      const texts = (await history(conversation)).map((m) => m.message);
      assert.equal(new Set(texts).size, texts.length, `still no message twice after the replays (seed ${SEED})`);
    }

    assert.equal(await server.stop('SIGTERM'), 0);
    const db = new DatabaseSync(dbPath, { readOnly: true });
    t.after(() => db.close());
    assert.equal((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
  },
);
