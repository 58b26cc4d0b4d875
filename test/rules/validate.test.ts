// The validators (src/rules/validate.ts): plain functions, tested with tables of input → the clean
// value, or → the refusal's reason and what its message tells the client to fix (as REST words it).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../../src/http/router.ts';
import * as v from '../../src/rules/validate.ts';
import { Refusal } from '../../src/refusals/refusal.ts';

type Accepted = [what: string, call: () => unknown, value: unknown];
type Refused = [what: string, call: () => unknown, reason: string, says: RegExp];

function assertAccepted(table: Accepted[]): void {
  for (const [what, call, value] of table) assert.deepEqual(call(), value, what);
}

function assertRefused(table: Refused[]): void {
  for (const [what, call, reason, says] of table) {
    let refusal: Refusal | undefined;
    try {
      call();
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      refusal = err;
    }
    assert.ok(refusal, `${what}: accepted, should be refused with ${reason}`);
    assert.equal(refusal.reason, reason, what);
    assert.match(refusal.message, says, what);
  }
}

const CREDENTIAL = 'a1'.repeat(32);
const UUID = '7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11';

test('characters are counted as Unicode code points, not UTF-16 units', () => {
  assertAccepted([
    ['ASCII', () => v.codePointLength('abc'), 3],
    ['an emoji is one', () => v.codePointLength('\u{1f600}'), 1],
    ['a combining mark is one of its own', () => v.codePointLength('e\u0301'), 2],
    ['empty', () => v.codePointLength(''), 0],
  ]);
});

test('a whole number in range, or its fallback; anything else is refused naming the range', () => {
  assertAccepted([
    ['absent', () => v.integerIn(undefined, 'limit', 30, 1, 100), 30],
    ['text', () => v.integerIn('100', 'limit', 30, 1, 100), 100],
    ['a number (MCP)', () => v.integerIn(1, 'limit', 30, 1, 100), 1],
    ['a seq without upper bound', () => v.updatesAfter(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER],
    ['history defaults', () => v.historyRange(undefined, undefined), { after: 0, limit: 50 }],
    ['history', () => v.historyRange('3', 7), { after: 3, limit: 7 }],
  ]);
  const range = /^The query parameter `limit` must be a whole number from 1 to 100\.$/;
  assertRefused([
    ['over', () => v.integerIn('101', 'limit', 30, 1, 100), 'integer_out_of_range', range],
    ['under', () => v.integerIn('0', 'limit', 30, 1, 100), 'integer_out_of_range', range],
    ['negative', () => v.integerIn('-1', 'limit', 30, 1, 100), 'integer_out_of_range', range],
    ['a fraction', () => v.integerIn(1.5, 'limit', 30, 1, 100), 'integer_out_of_range', range],
    ['decimal text', () => v.integerIn('1.0', 'limit', 30, 1, 100), 'integer_out_of_range', range],
    ['empty text', () => v.integerIn('', 'limit', 30, 1, 100), 'integer_out_of_range', range],
    ['null', () => v.integerIn(null, 'limit', 30, 1, 100), 'integer_out_of_range', range],
    ['after, negative', () => v.updatesAfter('-1'), 'integer_out_of_range', /`after` must be .* 0 or greater\.$/],
    ['after, past safe', () => v.updatesAfter('9007199254740992'), 'integer_out_of_range', /0 or greater/],
    ['history limit', () => v.historyRange('0', '101'), 'integer_out_of_range', /`limit` .* from 1 to 100/],
  ]);
});

test('the directory query: q of at most 120 characters, limit and offset in range, kind community or tool', () => {
  const query = (text: string) => parseQuery(text);
  assertAccepted([
    [
      'defaults',
      () => v.parseDirectoryQuery(query(''), null),
      { kind: null, q: '', category: '', limit: 30, offset: 0 },
    ],
    [
      'every parameter',
      () => v.parseDirectoryQuery(query('q=osv&category=security&limit=100&offset=10000'), 'tool'),
      { kind: 'tool', q: 'osv', category: 'security', limit: 100, offset: 10000 },
    ],
    ['120 emoji', () => v.searchText('\u{1f600}'.repeat(120)).length, 240],
    ['kind absent', () => v.kindOf(undefined), null],
    ['kind', () => v.kindOf('community'), 'community'],
  ]);
  assertRefused([
    ['q too long', () => v.searchText('x'.repeat(121)), 'query_too_long', /`q` must be at most 120 .*, got 121\./],
    ['offset over', () => v.parseDirectoryQuery(query('offset=10001'), null), 'integer_out_of_range', /`offset`/],
    ['limit over', () => v.parseDirectoryQuery(query('limit=101'), null), 'integer_out_of_range', /`limit`/],
    ['kind', () => v.kindOf('Tool'), 'bad_kind', /^The query parameter `kind` must be community or tool\.$/],
  ]);
});

test('a poll waits whole seconds from 0 to its maximum', () => {
  assertAccepted([
    ['absent', () => v.waitSeconds(undefined, 30), 0],
    ['the maximum', () => v.waitSeconds('30', 30), 30],
    ['a number (MCP)', () => v.waitSeconds(0, 30), 0],
  ]);
  const says = /^The query parameter `wait` must be a whole number of seconds from 0 to 30: longer waits/;
  assertRefused([
    ['over', () => v.waitSeconds('31', 30), 'wait_too_long', says],
    ['a fraction', () => v.waitSeconds('1.5', 30), 'wait_too_long', says],
    ['too many digits', () => v.waitSeconds('0000001', 30), 'wait_too_long', says],
  ]);
});

test('a conversation id is a UUID, compared in lower case', () => {
  assertAccepted([
    ['lower case', () => v.conversationId(UUID), UUID],
    ['upper case', () => v.conversationId(UUID.toUpperCase()), UUID],
  ]);
  const says = /^The conversation id in the path must be a UUID such as /;
  assertRefused([
    ['no dashes', () => v.conversationId(UUID.replaceAll('-', '')), 'bad_conversation_id', says],
    ['one character more', () => v.conversationId(`${UUID}0`), 'bad_conversation_id', says],
    ['a number', () => v.conversationId(7), 'bad_conversation_id', says],
  ]);
});

test('an idempotency key is 8 to 128 of A-Z a-z 0-9 _ . : -, in one header, quoted or not', () => {
  assertAccepted([
    ['the shortest', () => v.idempotencyKey('abcd_.:-'), 'abcd_.:-'],
    ['the longest', () => v.idempotencyKey('k'.repeat(128)), 'k'.repeat(128)],
    ['a header', () => v.idempotencyKeyHeader('key-00001'), 'key-00001'],
    ['a quoted header', () => v.idempotencyKeyHeader('"key-00001"'), 'key-00001'],
  ]);
  assertRefused([
    ['no header', () => v.idempotencyKeyHeader(undefined), 'key_missing', /^The Idempotency-Key header is required/],
    ['two headers', () => v.idempotencyKeyHeader(['key-00001', 'key-00002']), 'key_repeated', /exactly one/],
    ['a list in one', () => v.idempotencyKeyHeader('key-00001, key-00002'), 'key_repeated', /exactly one/],
    ['too short', () => v.idempotencyKey('k'.repeat(7)), 'key_length', /8 to 128 characters long, got 7\.$/],
    ['too long', () => v.idempotencyKey('k'.repeat(129)), 'key_length', /got 129\.$/],
    ['a space', () => v.idempotencyKey('key 00001'), 'key_characters', /only letters A-Z and a-z, digits/],
    ['a quote left', () => v.idempotencyKeyHeader('"key-00001'), 'key_characters', /only letters/],
    ['a number', () => v.idempotencyKey(12345678), 'wrong_type', /^The field `idempotency_key` must be a string/],
    ['named', () => v.idempotencyKey(null, 'key'), 'wrong_type', /`key` must be a string of 8 to 128 characters/],
  ]);
});

test('a body is a JSON object whose members the operation takes, and no other', () => {
  const body = { message: 'x' };
  assertAccepted([['allowed members', () => v.fieldsOf(body, ['message', 'metadata']), body]]);
  const object = /^The request body must be a JSON object such as \{"message": "\.\.\."\}\.$/;
  assertRefused([
    ['an array', () => v.fieldsOf([], ['message']), 'not_an_object', object],
    ['null', () => v.fieldsOf(null, ['message']), 'not_an_object', object],
    ['text', () => v.fieldsOf('message', ['message']), 'not_an_object', object],
    [
      'an unknown member',
      () => v.fieldsOf({ message: 'x', mesage: 'y' }, ['message', 'metadata']),
      'unknown_field',
      /^There is an unknown field "mesage" in the request body; allowed: message, metadata\.$/,
    ],
  ]);
});

test('a message is 1 to 8000 characters, not blank, without control characters but tab and line ends', () => {
  assertAccepted([
    ['plain', () => v.messageText('Hello.'), 'Hello.'],
    ['tab and line ends', () => v.messageText('a\tb\r\nc'), 'a\tb\r\nc'],
    ['8000 emoji', () => v.codePointLength(v.messageText('\u{1f600}'.repeat(8000))), 8000],
  ]);
  assertRefused([
    ['absent', () => v.messageText(undefined), 'required', /^The field `message` is required: a string of 1 to 8000/],
    ['a number', () => v.messageText(5), 'wrong_type', /^The field `message` must be a string of 1 to 8000/],
    ['empty', () => v.messageText(''), 'blank_message', /`message` must not be empty or only white space\.$/],
    ['white space', () => v.messageText(' \n\t'), 'blank_message', /white space/],
    ['too long', () => v.messageText('x'.repeat(8001)), 'too_long', /at most 8000 characters, got 8001\.$/],
    ['an escape', () => v.messageText('a\u001b[2Jb'), 'control_character', /\(found \\u001b\); only tab, line/],
    ['NUL', () => v.messageText('a\u0000'), 'control_character', /found \\u0000/],
    ['a C1 control', () => v.messageText('a\u0085'), 'control_character', /found \\u0085/],
    ['a lone surrogate', () => v.messageText('a\ud800'), 'lone_surrogate', /must be valid Unicode/],
    ['named', () => v.messageText('', 'text'), 'blank_message', /`text`/],
  ]);
});

test('metadata holds any of agent_name, model, framework: each a line of at most 500 characters', () => {
  assertAccepted([
    ['absent', () => v.metadataOf(undefined), {}],
    ['null', () => v.metadataOf(null), {}],
    ['all three', () => v.metadataOf({ agent_name: 'a', model: 'm', framework: 'f' }), {
      agent_name: 'a',
      model: 'm',
      framework: 'f',
    }],
    ['500 characters', () => v.metadataOf({ model: 'm'.repeat(500) }).model?.length, 500],
  ]);
  assertRefused([
    ['an array', () => v.metadataOf([]), 'wrong_type', /`metadata` must be an object with any of agent_name/],
    ['text', () => v.metadataOf('scout'), 'wrong_type', /`metadata` must be an object/],
    ['another key', () => v.metadataOf({ name: 'x' }), 'unknown_metadata_key', /unknown metadata key "name"; allowed/],
    ['a number', () => v.metadataOf({ model: 4 }), 'wrong_type', /^The field `metadata\.model` must be a string\.$/],
    ['too long', () => v.metadataOf({ model: 'm'.repeat(501) }), 'too_long', /`metadata\.model` .* got 501\./],
    ['a line feed', () => v.metadataOf({ model: 'a\nb' }), 'control_character', /\\u000a\); send plain text/],
    ['a tab', () => v.metadataOf({ model: 'a\tb' }), 'control_character', /\\u0009/],
    ['a lone surrogate', () => v.metadataOf({ model: '\udc00' }), 'lone_surrogate', /`metadata\.model`/],
  ]);
});

test('a credential has the form of 64 lowercase hex characters', () => {
  assertAccepted([
    ['the form', () => v.isCredentialShaped(CREDENTIAL), true],
    ['upper case', () => v.isCredentialShaped(CREDENTIAL.toUpperCase()), false],
    ['63', () => v.isCredentialShaped(CREDENTIAL.slice(1)), false],
    ['65', () => v.isCredentialShaped(`${CREDENTIAL}0`), false],
    ['not hex', () => v.isCredentialShaped(`${CREDENTIAL.slice(1)}g`), false],
    ['not text', () => v.isCredentialShaped(undefined), false],
  ]);
});
