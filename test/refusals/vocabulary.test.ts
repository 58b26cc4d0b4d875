// One reason vocabulary on every door (src/refusals/, and each door's rendering of a refusal): the
// walk of the whole catalogue. Every reason a client can be given is triggered on each door where it
// can occur (REST, MCP, A2A: test/refusals/walk-*.ts), and the reason the door gives is the
// catalogue's. A reason no shared service can trigger (a database fault, a socket's slow headers)
// is named with the test that triggers it, which must say it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { clientReasons } from '../../src/refusals/refusal.ts';
import { ROOT } from '../helpers.ts';
import { CONVERSATION_CASES, HTTP_JSON_CASES } from './walk-conversations.ts';
import { REQUEST_CASES } from './walk-requests.ts';
import { Walk, type Case } from './walk.ts';

const CASES: Case[] = [...REQUEST_CASES, ...CONVERSATION_CASES, ...HTTP_JSON_CASES];

// Reasons whose trigger needs a setup of its own: each named with the test file that triggers it.
const ELSEWHERE: Record<string, string> = {
  malformed_http: 'test/http/http.test.ts',
  host_header: 'test/http/http.test.ts',
  expectation_failed: 'test/http/http.test.ts',
  headers_too_large: 'test/http/http.test.ts',
  request_timeout: 'test/service/resilience.test.ts',
  internal: 'test/http/http.test.ts',
  database_busy: 'test/service/resilience.test.ts',
  database_unavailable: 'test/service/resilience.test.ts',
  not_utf8: 'test/doors/mcp/protocol.test.ts',
  signatures_full: 'test/rules/signatures.test.ts',
  outbound_busy: 'test/outbound/lookups.test.ts',
};

test('every reason a client can be given is walked on a door, or triggered by a named test', () => {
  const walked = new Set(CASES.map((walk) => walk.reason));
  for (const { reason } of clientReasons()) {
    const elsewhere = ELSEWHERE[reason];
    assert.ok(walked.has(reason) || elsewhere !== undefined, `${reason} is walked or named`);
    if (elsewhere !== undefined && !walked.has(reason)) {
      assert.ok(readFileSync(path.join(ROOT, elsewhere), 'utf8').includes(reason), `${elsewhere} triggers ${reason}`);
    }
  }
});

for (const walk of CASES) {
  test(`${walk.reason} is ${walk.reason} on ${walk.door}`, async (t) => {
    assert.equal(await walk.run(new Walk(t)), walk.reason);
  });
}
