// The parts wired as the service is meant to wire them: read the headers, judge what needs no key,
// look the key up in the agent's directory (a fake fetcher here), judge the signature. Each row of
// the table of docs/verified-agents.md comes out as the status the integrator answers.
// Covers: src/identity/signed-request.ts, src/identity/signature-base.ts, src/identity/key-directory.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyDirectories, type KeyDirectoryAnswer } from '../../src/identity/key-directory.ts';
import type { RequestHeaders } from '../../src/identity/request-fields.ts';
import { judgeBeforeKey, judgeSignature, readSignature } from '../../src/identity/signed-request.ts';
import { agentKey, CREATED, noHttpHosts, NOW, serviceRequest, signRequest } from './signing.ts';

const KEY = agentKey();
const OTHER_KEY = agentKey();

type Outcome = { status: 200; identity: string | null } | { status: 400 | 401 | 503; problem: string };

/** What the service answers for a request's headers, after the per-address limit and Origin checks. */
async function outcome(directories: KeyDirectories, headers: RequestHeaders, now = NOW): Promise<Outcome> {
  const reading = readSignature(headers, noHttpHosts);
  if (reading.kind === 'unsigned') return { status: 200, identity: null };
  if (reading.kind === 'malformed') return { status: 400, problem: reading.problem };
  const early = judgeBeforeKey(reading, now);
  if (early) return { status: 401, problem: early.problem };
  const found = await directories.keyFor(reading.keyDirectoryUrl, reading.params.keyid, now, '127.0.0.1');
  if (found.kind === 'busy') return { status: 503, problem: 'busy' };
  if (found.kind === 'unavailable') return { status: 503, problem: found.problem };
  const key = found.kind === 'key' ? found.key : undefined;
  const judged = judgeSignature(reading, serviceRequest(headers), key);
  if (judged.kind === 'invalid') return { status: 401, problem: judged.problem };
  return { status: 200, identity: judged.identity };
}

function agentDirectory(answer: () => KeyDirectoryAnswer | Error) {
  const fetched: string[] = [];
  const directories = new KeyDirectories({
    fetchKeyDirectory: async (url) => {
      fetched.push(url.href);
      const given = answer();
      if (given instanceof Error) throw given;
      return given;
    },
  });
  return { fetched, directories };
}

const jwkSet = (...keys: Array<typeof KEY>): KeyDirectoryAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/http-message-signatures-directory+json' },
  body: Buffer.from(JSON.stringify({ keys: keys.map((key) => ({ kty: 'OKP', crv: 'Ed25519', x: key.jwk.x })) })),
});

test('a signed request is verified with the key its agent publishes, and its directory is fetched once', async () => {
  const { fetched, directories } = agentDirectory(() => jwkSet(OTHER_KEY, KEY));
  const headers = await signRequest({ key: KEY });
  assert.deepEqual(await outcome(directories, headers), { status: 200, identity: 'https://agent.example' });
  assert.deepEqual(await outcome(directories, headers, NOW + 1000), { status: 200, identity: 'https://agent.example' });
  assert.deepEqual(fetched, ['https://agent.example/.well-known/http-message-signatures-directory']);
});

test('each row of the table gets its status, and nothing is fetched for a request refused without a key', async () => {
  const { fetched, directories } = agentDirectory(() => jwkSet(OTHER_KEY));
  assert.deepEqual(await outcome(directories, {}), { status: 200, identity: null });
  const malformed = await signRequest({ key: KEY, params: ['created', 'keyid', 'tag'] });
  assert.equal((await outcome(directories, malformed)).status, 400);
  const expired = await signRequest({ key: KEY, created: CREATED - 1000, expires: CREATED - 500 });
  assert.equal((await outcome(directories, expired)).status, 401);
  assert.deepEqual(fetched, [], 'neither a malformed nor an expired signature costs a fetch');
  const unknownKey = await outcome(directories, await signRequest({ key: KEY }));
  assert.equal(unknownKey.status, 401, 'the directory answered without the key');
});

test('a directory that cannot be fetched makes the request wait (503), not fail as unsigned', async () => {
  const refused = new Error('the host agent.example does not resolve to public addresses only');
  const { directories } = agentDirectory(() => refused);
  const answer = await outcome(directories, await signRequest({ key: KEY }));
  assert.equal(answer.status, 503);
  assert.match((answer as { problem: string }).problem, /not resolve to public addresses only/);
});
