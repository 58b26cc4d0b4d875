// How the A2A door names each refusal of the catalogue (src/doors/a2a/errors.ts): every limit is
// 429 RESOURCE_EXHAUSTED, as a2a.md says of limits, and every refusal keeps its HTTP status's class
// where A2A has one (a credential 401, a block 403, a fault 5xx), whatever reason a new entry adds.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KINDS, a2aErrorOf } from '../../../src/doors/a2a/errors.ts';
import { CATALOGUE, Refusal, type Reason } from '../../../src/refusals/refusal.ts';

/** The A2A error of a refusal with this reason; its message is not what is judged here. */
function a2aOf(reason: Reason) {
  const refusal = Object.assign(Object.create(Refusal.prototype) as Refusal, {
    reason,
    status: CATALOGUE[reason].status,
    message: '',
    headers: {},
    messageIn: () => '',
  });
  return KINDS[a2aErrorOf(refusal, (err) => err as Refusal).kind];
}

/** The reasons an agent can be given, on any door (not the owner's, nor /metrics's scraper's). */
const AGENT_REASONS = (Object.keys(CATALOGUE) as Reason[]).filter((reason) =>
  CATALOGUE[reason].on.some((scope) => scope !== 'owner' && scope !== 'metrics'),
);

test('every limit of the catalogue is an A2A 429 RESOURCE_EXHAUSTED', () => {
  const limits = AGENT_REASONS.filter((reason) => CATALOGUE[reason].status === 429);
  assert.ok(limits.length >= 8, limits.join(', '));
  for (const reason of limits) {
    const kind = a2aOf(reason);
    assert.deepEqual([kind.http, kind.status], [429, 'RESOURCE_EXHAUSTED'], reason);
  }
});

test('a refusal for a credential is 401, a block 403, a fault or a busy dependency 5xx, on A2A too', () => {
  for (const reason of AGENT_REASONS) {
    const { status } = CATALOGUE[reason];
    const { http } = a2aOf(reason);
    if (status === 401 || status >= 500) assert.equal(http, status, reason);
  }
});
