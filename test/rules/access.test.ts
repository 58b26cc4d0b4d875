// Who may use a conversation (src/rules/access.ts), called directly on a real store: the contract's
// order of refusals for a credential and the id it is used with, a conversation's state (blocked,
// expired, purged), and the credential's digest. (Through REST, on every conversation endpoint, with
// WWW-Authenticate and the header's spellings: test/rules/conversations-auth.test.ts.)

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import {
  authenticate,
  conversationOfCredential,
  digestOf,
  usableConversation,
  type CredentialLookup,
} from '../../src/rules/access.ts';
import { Refusal } from '../../src/refusals/refusal.ts';
import { memoryStore, seedConversation } from '../store/seed-rows.ts';

const EXPIRES = '2027-03-10T12:00:00.000Z';
const BEFORE = Date.parse(EXPIRES) - 1;

/** The reason a call is refused for, or 'allowed'. */
function reasonOf(call: () => unknown): string {
  try {
    call();
    return 'allowed';
  } catch (err) {
    if (err instanceof Refusal) return err.reason;
    throw err;
  }
}

function setUp(t: TestContext) {
  const store = memoryStore(t);
  const credentials: CredentialLookup = { lookup: (digest) => store.conversationByTokenHash(digest) };
  const mine = seedConversation(store, { expires_at: EXPIRES });
  const other = seedConversation(store);
  const blocked = seedConversation(store, { blocked: 1, expires_at: '2026-01-01T00:00:00.000Z' });
  return { store, credentials, mine, other, blocked };
}

test('a credential is its SHA-256 in hex, the only form in which it is looked up', () => {
  const token = 'ab'.repeat(32);
  assert.equal(digestOf(token), createHash('sha256').update(token).digest('hex'));
});

test('authenticate refuses in the order of the contract: credential, id, other conversation, block, expiry', (t) => {
  const { credentials, mine, other, blocked } = setUp(t);
  const id = mine.conversation.id;
  const table: [what: string, token: string | undefined, rawId: unknown, at: number, reason: string][] = [
    ['its own credential and id', mine.token, id, BEFORE, 'allowed'],
    ['the id in upper case', mine.token, id.toUpperCase(), BEFORE, 'allowed'],
    ['no credential, and a bad id', undefined, 'not-a-uuid', BEFORE, 'no_credential'],
    ['a credential in upper case', mine.token.toUpperCase(), id, BEFORE, 'no_credential'],
    ['a credential one character short', mine.token.slice(1), id, BEFORE, 'no_credential'],
    ['an unknown credential, and a bad id', '0'.repeat(64), 'not-a-uuid', BEFORE, 'unknown_credential'],
    ['a bad id', mine.token, 'not-a-uuid', BEFORE, 'bad_conversation_id'],
    ['a number for an id', mine.token, 42, BEFORE, 'bad_conversation_id'],
    ["another conversation's id", mine.token, other.conversation.id, BEFORE, 'other_conversation'],
    ["a blocked one's credential on another id", blocked.token, id, BEFORE, 'other_conversation'],
    ['a blocked and expired conversation', blocked.token, blocked.conversation.id, BEFORE, 'blocked'],
    ['at the instant it expires', mine.token, id, BEFORE + 1, 'expired'],
  ];
  for (const [what, token, rawId, at, reason] of table) {
    assert.equal(reasonOf(() => authenticate(credentials, token, rawId, at)), reason, what);
  }
  assert.equal(authenticate(credentials, mine.token, id.toUpperCase(), BEFORE).id, id, 'its conversation');
});

test('the refusal of an expired credential says when it expired', (t) => {
  const { credentials, mine } = setUp(t);
  assert.throws(
    () => authenticate(credentials, mine.token, mine.conversation.id, Date.parse(EXPIRES)),
    (err) => err instanceof Refusal && err.status === 410 && err.message.includes(`expired at ${EXPIRES}.`),
  );
});

test('the conversation of a credential, whichever it is, is refused for the same credential and state', (t) => {
  const { credentials, mine, blocked } = setUp(t);
  assert.equal(conversationOfCredential(credentials, mine.token, BEFORE).id, mine.conversation.id);
  const table: [token: string | undefined, at: number, reason: string][] = [
    [undefined, BEFORE, 'no_credential'],
    ['f'.repeat(64), BEFORE, 'unknown_credential'],
    [blocked.token, BEFORE, 'blocked'],
    [mine.token, BEFORE + 1, 'expired'],
  ];
  for (const [token, at, reason] of table) {
    assert.equal(reasonOf(() => conversationOfCredential(credentials, token, at)), reason, reason);
  }
});

test('a conversation about to be used is refused once purged, blocked or expired, as read now', (t) => {
  const { store, mine } = setUp(t);
  const id = mine.conversation.id;
  assert.equal(usableConversation(store.conversationById(id), BEFORE).id, id);
  assert.equal(reasonOf(() => usableConversation(undefined, BEFORE)), 'unknown_credential', 'purged meanwhile');
  store.setBlocked(id, true);
  assert.equal(reasonOf(() => usableConversation(store.conversationById(id), BEFORE)), 'blocked');
  store.setBlocked(id, false);
  assert.equal(reasonOf(() => usableConversation(store.conversationById(id), BEFORE + 1)), 'expired');
});
