// A header field's value as RFC 9421 §2.1 reads it (src/identity/request-fields.ts): every value it
// was sent with, each trimmed and unfolded, joined by ", "; absent when it was not sent.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combinedField } from '../../src/identity/request-fields.ts';

test('a field sent once is its value trimmed; a field sent several times is its values joined by ", "', () => {
  assert.equal(combinedField({ 'signature-agent': '  "https://a.test"  ' }, 'signature-agent'), '"https://a.test"');
  const repeated = { 'cache-control': ['max-age=60', ' must-revalidate '] };
  assert.equal(combinedField(repeated, 'cache-control'), 'max-age=60, must-revalidate');
});

test('obsolete line folding becomes one space, as §2.1 says', () => {
  assert.equal(combinedField({ 'x-folded': 'one\r\n  two\n\tthree' }, 'x-folded'), 'one two three');
});

test('a field not sent, or sent with no value at all, is absent; an empty value is kept as empty', () => {
  assert.equal(combinedField({}, 'signature-agent'), undefined);
  assert.equal(combinedField({ 'signature-agent': undefined }, 'signature-agent'), undefined);
  assert.equal(combinedField({ 'signature-agent': [] }, 'signature-agent'), undefined);
  assert.equal(combinedField({ 'x-empty': '' }, 'x-empty'), '');
});
