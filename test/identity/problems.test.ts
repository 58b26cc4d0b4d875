// What a signed request's problem may repeat of what the client sent (src/identity/problems.ts): at
// most 100 characters, marked as cut; and the one error the identity parsers throw.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { excerpt, HeaderProblem } from '../../src/identity/problems.ts';

test('an excerpt keeps up to 100 characters as sent, and cuts a longer text at 100 with an ellipsis', () => {
  assert.equal(excerpt(''), '');
  assert.equal(excerpt('x'.repeat(100)), 'x'.repeat(100));
  assert.equal(excerpt('x'.repeat(101)), `${'x'.repeat(100)}…`);
  assert.equal(excerpt('y'.repeat(10_000)).length, 101);
});

test('a HeaderProblem is an Error of its own kind, its message what the client is told', () => {
  const problem = new HeaderProblem('the Signature header is missing');
  assert.ok(problem instanceof Error);
  assert.equal(problem.name, 'HeaderProblem');
  assert.equal(problem.message, 'the Signature header is missing');
  assert.equal(new Error('x') instanceof HeaderProblem, false, 'a bug of the code is not a client problem');
});
