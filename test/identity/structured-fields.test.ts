// RFC 8941 as far as the signature headers need it: strict parsing of a Dictionary, strict
// serialization of what the signature base repeats, and the bounds checked before any parsing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeaderProblem } from '../../src/identity/problems.ts';
import {
  MAX_DICTIONARY_MEMBERS,
  MAX_FIELD_BYTES,
  parseDictionary,
  parseItemField,
  serializeInnerList,
  serializeMember,
  serializeString,
  type Member,
} from '../../src/identity/structured-fields.ts';

const reserialized = (field: string) =>
  [...parseDictionary(field, 'Test').entries()].map(([key, member]) => `${key}=${serializeMember(member)}`).join(', ');

test('every bare item type parses and serializes back to its strict form', () => {
  const cases: Array<[string, string]> = [
    ['a=1', 'a=1'],
    ['a=-999999999999999', 'a=-999999999999999'],
    ['a=4.5', 'a=4.5'],
    ['a=-0.125', 'a=-0.125'],
    ['a=1.50', 'a=1.5'],
    ['a=2.0', 'a=2.0'],
    ['a="he said \\"hi\\" \\\\ bye"', 'a="he said \\"hi\\" \\\\ bye"'],
    ['a=token/with:colon*', 'a=token/with:colon*'],
    ['a=*star', 'a=*star'],
    ['a=:aGVsbG8=:', 'a=:aGVsbG8=:'],
    ['a=?0', 'a=?0'],
    ['a', 'a=?1'],
    ['a;p=1;q', 'a=?1;p=1;q'],
    ['a=?1;q=?0', 'a=?1;q=?0'],
  ];
  for (const [field, expected] of cases) assert.equal(reserialized(field), expected, field);
});

test('a dictionary keeps its members in order, a repeated key keeps its first place and its last value', () => {
  assert.equal(reserialized('b=1,   a=2 ,c=3,b=4'), 'b=4, a=2, c=3');
  assert.deepEqual([...parseDictionary('', 'Test').keys()], [], 'an empty field is an empty dictionary');
  assert.equal(reserialized('a=1,\tb=2'), 'a=1, b=2', 'optional white space around commas');
});

test('an inner list with parameters is serialized as RFC 8941 section 4.1.1.1 says', () => {
  const field = 'sig1=(  "@authority"   "signature-agent";key="sig1" );created=1;keyid="k";tag="web-bot-auth"';
  const member = parseDictionary(field, 'Signature-Input').get('sig1') as Member;
  assert.equal(member.kind, 'inner-list');
  assert.equal(
    serializeInnerList(member as Extract<Member, { kind: 'inner-list' }>),
    '("@authority" "signature-agent";key="sig1");created=1;keyid="k";tag="web-bot-auth"',
  );
  assert.equal(reserialized('c=()'), 'c=()', 'an empty inner list');
});

test('a string is serialized with its quotes and backslashes escaped', () => {
  assert.equal(serializeString('plain'), '"plain"');
  assert.equal(serializeString('a"b\\c'), '"a\\"b\\\\c"');
});

test('a single item field parses, as the legacy Signature-Agent string is sent', () => {
  const item = parseItemField('"https://agent.example"', 'Signature-Agent');
  assert.deepEqual(item.value, { type: 'string', value: 'https://agent.example' });
  assert.throws(() => parseItemField('"https://a.example", "https://b.example"', 'Signature-Agent'), {
    message: /Signature-Agent is not a valid structured field: has text after its value/,
  });
});

test('each malformed value is refused with a HeaderProblem that says what is wrong', () => {
  const cases: Array<[string, RegExp]> = [
    ['A=1', /a key must start with a lower-case letter or \*/],
    ['a=1,', /a comma ends the value/],
    ['a=1 b=2', /expected a comma between members/],
    ['a=', /a value is missing/],
    ['a=1234567890123456', /an integer has more than 15 digits/],
    ['a=1234567890123.5', /a decimal has more than 12 digits before its point/],
    ['a=1.2345', /a decimal must have 1 to 3 digits after its point/],
    ['a=1.', /a decimal must have 1 to 3 digits after its point/],
    ['a=-', /a minus sign must be followed by a digit/],
    ['a="open', /a string is not closed/],
    ['a="bad \\n escape"', /a string may only escape " and \\/],
    ['a="tab\there"', /not printable ASCII/],
    ['a=:not base64!:', /not base64/],
    ['a=:abc', /a byte sequence is not closed/],
    ['a=?2', /a boolean must be \?0 or \?1/],
    ['a=(1 2', /an inner list is not closed/],
    ['a=(1,2)', /expected a space or \) in an inner list/],
    ['a=@x', /a value must be a number, string, token/],
    ['a=1;P=2', /a key must start with a lower-case letter/],
  ];
  for (const [field, message] of cases) {
    assert.throws(
      () => parseDictionary(field, 'Test'),
      (err: unknown) => err instanceof HeaderProblem && message.test(err.message),
      field,
    );
  }
});

test('a field over 8 KiB is refused before it is parsed', () => {
  const longest = `a="${'x'.repeat(MAX_FIELD_BYTES - 4)}"`;
  assert.equal(longest.length, MAX_FIELD_BYTES);
  assert.equal(parseDictionary(longest, 'Test').size, 1);
  assert.throws(() => parseDictionary(`${longest} `, 'Test'), { message: 'Test must be at most 8192 bytes' });
  assert.throws(() => parseItemField(`"${'x'.repeat(MAX_FIELD_BYTES)}"`, 'Item'), { message: /at most 8192 bytes/ });
});

test('a dictionary of more than 32 members is refused, repeated keys counted', () => {
  const members = (n: number) => Array.from({ length: n }, (_, i) => `m${i}=${i}`).join(', ');
  assert.equal(parseDictionary(members(MAX_DICTIONARY_MEMBERS), 'Test').size, 32);
  assert.throws(() => parseDictionary(members(33), 'Test'), { message: 'Test must have at most 32 members' });
  assert.throws(() => parseDictionary(Array(33).fill('a=1').join(','), 'Test'), { message: /at most 32 members/ });
});
