// Reading the request target (src/http/router.ts): the target split into path and query, a route
// matched on the raw path (HEAD as GET, 405 with Allow), its parameters and the query decoded strictly.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Refusal } from '../../src/refusals/refusal.ts';
import { createRouter, decodeParams, parseQuery, splitTarget } from '../../src/http/router.ts';

/** The refusal `call` throws: its reason and message. */
function refusalOf(call: () => unknown): { reason: string; message: string } {
  try {
    call();
  } catch (err) {
    if (err instanceof Refusal) return { reason: err.reason, message: err.message };
    throw err;
  }
  assert.fail('accepted, should be refused');
}

test('a target splits into its raw path and query; an absolute-form target loses its origin, a fragment goes', () => {
  assert.deepEqual(splitTarget('/a/b?x=1&y'), { path: '/a/b', rawQuery: 'x=1&y' });
  assert.deepEqual(splitTarget('/a'), { path: '/a', rawQuery: '' });
  assert.deepEqual(splitTarget('/a?x=1#frag'), { path: '/a', rawQuery: 'x=1' });
  assert.deepEqual(splitTarget('http://contact.example:8080/p?q=%20'), { path: '/p', rawQuery: 'q=%20' });
  assert.deepEqual(splitTarget('http://contact.example'), { path: '/', rawQuery: '' });
});

test('a route matches its raw path and method, HEAD as GET; a known path without the method names Allow', () => {
  const router = createRouter([
    { method: 'GET', pattern: '/items/:id', policy: 'p', handler: 'get' },
    { method: 'POST', pattern: '/items/:id', policy: 'p', handler: 'post' },
    { method: 'POST', pattern: '/tasks/:id:cancel', policy: 'q', handler: 'cancel' },
  ]);
  assert.deepEqual(router.match('GET', '/items/a%2Fb'), {
    kind: 'found',
    handler: 'get',
    pattern: '/items/:id',
    policy: 'p',
    rawParams: { id: 'a%2Fb' },
  });
  assert.equal((router.match('HEAD', '/items/x') as { handler: string }).handler, 'get');
  assert.deepEqual(router.match('DELETE', '/items/x'), {
    kind: 'method-not-allowed',
    pattern: '/items/:id',
    policy: 'p',
    allow: 'GET, HEAD, POST, OPTIONS',
  });
  assert.deepEqual((router.match('POST', '/tasks/t1:cancel') as { rawParams: object }).rawParams, { id: 't1' });
  assert.deepEqual(router.match('GET', '/items/x/y'), { kind: 'not-found' });
  assert.deepEqual(router.match('GET', '/items/'), { kind: 'not-found' }, 'a parameter is never empty');
});

test('path parameters are percent-decoded once matched; a bad escape is refused', () => {
  assert.deepEqual(decodeParams({ id: 'plain', other: 'a%20b' }), { id: 'plain', other: 'a b' });
  assert.equal(refusalOf(() => decodeParams({ id: '%zz' })).reason, 'bad_percent_encoding');
});

test('a query string is decoded strictly: a repeated parameter or bad percent-encoding is refused', () => {
  assert.deepEqual(
    [...parseQuery('q=a&limit=5')],
    [
      ['q', 'a'],
      ['limit', '5'],
    ],
  );
  assert.deepEqual([...parseQuery('q=a+b%26c')], [['q', 'a b&c']], 'encoded, + as a space');
  assert.deepEqual(
    [...parseQuery('q&&x=')],
    [
      ['q', ''],
      ['x', ''],
    ],
    'a name without a value',
  );
  assert.equal(parseQuery('').size, 0);
  const refused: [string, string, RegExp][] = [
    ['q=a&q=b', 'repeated_parameter', /^A query parameter is repeated; send each/],
    ['q=a&%71=b', 'repeated_parameter', /repeated/], // repeated once decoded
    ['q=%zz', 'bad_percent_encoding', /^The query string has malformed/],
    ['%e9=x', 'bad_percent_encoding', /two hex digits/], // a bad escape in a name
  ];
  for (const [query, reason, says] of refused) {
    const refusal = refusalOf(() => parseQuery(query));
    assert.equal(refusal.reason, reason, query);
    assert.match(refusal.message, says, query);
  }
});
