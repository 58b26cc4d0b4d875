// The RFC 9421 signature base, held to the RFC's own examples: the Ed25519 test vector of
// Appendix B.2.6 with the key of Appendix B.1.4, and the component values of sections 2.1, 2.1.2
// and 2.2. Source: httpwg/http-extensions, archive/draft-ietf-httpbis-message-signatures.md
// (commit b1b1c72f), the text published as RFC 9421.

import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { test } from 'node:test';
import type { RequestHeaders } from '../../src/identity/request-fields.ts';
import { parseCoveredComponents, signatureBase, type SignedRequestFacts } from '../../src/identity/signature-base.ts';
import { parseDictionary, serializeInnerList, type InnerList } from '../../src/identity/structured-fields.ts';

// RFC 9421 Appendix B.1.4, test-key-ed25519.
const TEST_KEY_ED25519_PUBLIC = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
-----END PUBLIC KEY-----`;
const TEST_KEY_ED25519_PRIVATE = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----`;

// RFC 9421 Appendix B.2, test-request (its Host is example.com, requested over https).
const TEST_REQUEST: SignedRequestFacts = {
  method: 'POST',
  authority: 'example.com',
  scheme: 'https',
  path: '/foo',
  query: '?param=Value&Pet=dog',
  headers: {
    host: 'example.com',
    date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    'content-type': 'application/json',
    'content-digest':
      'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'content-length': '18',
  },
};

// RFC 9421 Appendix B.2.6.
const B26_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473' +
  ';keyid="test-key-ed25519"';
const B26_SIGNATURE = 'wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==';
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length")' +
    ';created=1618884473;keyid="test-key-ed25519"',
].join('\n');

function member(input: string, label: string): InnerList {
  const found = parseDictionary(input, 'Signature-Input').get(label);
  assert.equal(found?.kind, 'inner-list');
  return found as InnerList;
}

/** The base for a Signature-Input member over `request`. */
function baseOf(input: string, label: string, request: SignedRequestFacts): string {
  const list = member(input, label);
  return signatureBase(parseCoveredComponents(list), serializeInnerList(list), request);
}

/** The component value lines for covered component identifiers, without the final params line. */
function linesFor(identifiers: string, request: SignedRequestFacts): string[] {
  return baseOf(`s=(${identifiers})`, 's', request).split('\n').slice(0, -1);
}

const withHeaders = (headers: RequestHeaders): SignedRequestFacts => ({ ...TEST_REQUEST, headers });

test('the RFC 9421 B.2.6 signature base is reproduced exactly, and its published signature verifies', () => {
  const base = baseOf(B26_INPUT, 'sig-b26', TEST_REQUEST);
  assert.equal(base, B26_BASE);
  assert.ok(!base.endsWith('\n'), 'no final newline');
  const signature = Buffer.from(B26_SIGNATURE, 'base64');
  assert.ok(verify(null, Buffer.from(base), createPublicKey(TEST_KEY_ED25519_PUBLIC), signature));
  // Ed25519 is deterministic: the B.1.4 private key signs this base into exactly the published bytes.
  const signed = sign(null, Buffer.from(base), createPrivateKey(TEST_KEY_ED25519_PRIVATE));
  assert.equal(signed.toString('base64'), B26_SIGNATURE);
});

test('the B.2.6 signature fails for another authority, since @authority is the service own', () => {
  const base = baseOf(B26_INPUT, 'sig-b26', { ...TEST_REQUEST, authority: 'other.example' });
  assert.match(base, /^"@authority": other\.example$/m);
  const signature = Buffer.from(B26_SIGNATURE, 'base64');
  assert.equal(verify(null, Buffer.from(base), createPublicKey(TEST_KEY_ED25519_PUBLIC), signature), false);
});

test('header field values are trimmed, unfolded and combined with ", " as RFC 9421 section 2.1 shows', () => {
  const request = withHeaders({
    'x-ows-header': '   Leading and trailing whitespace.   ',
    'x-obs-fold-header': 'Obsolete\r\n    line folding.',
    'cache-control': ['max-age=60', '   must-revalidate'],
    'example-dict': ' a=1,    b=2;x=1;y=2,   c=(a   b   c)',
    'x-empty-header': '',
  });
  const identifiers = '"x-ows-header" "x-obs-fold-header" "cache-control" "example-dict" "x-empty-header"';
  assert.deepEqual(linesFor(identifiers, request), [
    '"x-ows-header": Leading and trailing whitespace.',
    '"x-obs-fold-header": Obsolete line folding.',
    '"cache-control": max-age=60, must-revalidate',
    '"example-dict": a=1,    b=2;x=1;y=2,   c=(a   b   c)',
    '"x-empty-header": ',
  ]);
});

test('a dictionary member selected by key is re-serialized as RFC 9421 section 2.1.2 shows', () => {
  const request = withHeaders({ 'example-dict': '  a=1, b=2;x=1;y=2, c=(a   b    c), d' });
  const identifiers = '"example-dict";key="a" "example-dict";key="d" "example-dict";key="b" "example-dict";key="c"';
  assert.deepEqual(linesFor(identifiers, request), [
    '"example-dict";key="a": 1',
    '"example-dict";key="d": ?1',
    '"example-dict";key="b": 2;x=1;y=2',
    '"example-dict";key="c": (a b c)',
  ]);
  // The Signature-Agent member as web bot auth covers it, among members of other signers.
  const agents = withHeaders({ 'signature-agent': 'other="https://other.example",  sig1="https://agent.example"' });
  assert.deepEqual(linesFor('"signature-agent";key="sig1"', agents), [
    '"signature-agent";key="sig1": "https://agent.example"',
  ]);
});

test('the derived components take their values from the service authority and the request as section 2.2 shows', () => {
  const request: SignedRequestFacts = {
    method: 'POST',
    authority: 'www.example.com',
    scheme: 'https',
    path: '/path',
    query: '?param=value',
    headers: { host: 'evil.example' },
  };
  const all = '"@method" "@target-uri" "@authority" "@scheme" "@request-target" "@path" "@query"';
  assert.deepEqual(linesFor(all, request), [
    '"@method": POST',
    '"@target-uri": https://www.example.com/path?param=value',
    '"@authority": www.example.com',
    '"@scheme": https',
    '"@request-target": /path?param=value',
    '"@path": /path',
    '"@query": ?param=value',
  ]);
  const bare = { ...request, scheme: 'http' as const, path: '', query: '' };
  assert.deepEqual(linesFor('"@scheme" "@path" "@query" "@target-uri"', bare), [
    '"@scheme": http',
    '"@path": /',
    '"@query": ?',
    '"@target-uri": http://www.example.com/',
  ]);
  const encoded = { ...request, query: '?param=value&foo=bar&baz=bat%2Dman' };
  assert.deepEqual(linesFor('"@query"', encoded), ['"@query": ?param=value&foo=bar&baz=bat%2Dman']);
});

test('what this service does not implement is refused with a reason, never skipped', () => {
  const cases: Array<[string, RegExp]> = [
    ['"@foo"', /the derived component "@foo" is unknown; use one of @method @authority/],
    ['"@query-param";name="a"', /"@query-param" is not supported here: cover "@query" instead/],
    ['"@status"', /"@status" is for signed responses/],
    ['"@signature-params"', /"@signature-params" must not be among the covered components/],
    ['"@authority" "@authority"', /the component "@authority" is covered twice/],
    ['"date" "date"', /the component "date" is covered twice/],
    ['"example-dict";key="a" "example-dict";key="a"', /the component "example-dict";key="a" is covered twice/],
    ['"@authority";req', /the parameter req is not supported on "@authority"/],
    ['"date";req', /the req parameter of "date" is for signed responses/],
    ['"example-dict";sf', /the parameter sf of "example-dict" is not supported here \(only key is\)/],
    ['"date";bs', /the parameter bs of "date" is not supported here/],
    ['"date";tr', /the parameter tr of "date" is not supported here/],
    ['"example-dict";key=a', /the key parameter of "example-dict" must be a string/],
    ['"Date"', /the covered component "Date" must be a lower-case header field name/],
    ['date', /each covered component in Signature-Input must be a string/],
  ];
  for (const [identifiers, message] of cases) {
    assert.throws(() => parseCoveredComponents(member(`s=(${identifiers})`, 's')), message, identifiers);
  }
  // The same component with another key is another component.
  assert.equal(parseCoveredComponents(member('s=("d";key="a" "d";key="b" "d")', 's')).length, 3);
});

test('a covered header or dictionary member the request lacks makes no base', () => {
  assert.throws(() => linesFor('"x-missing"', TEST_REQUEST), {
    message: 'the covered header x-missing is missing from the request',
  });
  const request = withHeaders({ 'example-dict': 'a=1, b=2' });
  assert.throws(() => linesFor('"example-dict";key="c"', request), {
    message: 'the example-dict header has no member c, which the signature covers',
  });
  assert.throws(() => linesFor('"example-dict";key="a"', withHeaders({ 'example-dict': 'a=1, ' })), {
    message: /the example-dict header is not a valid structured field/,
  });
  assert.throws(() => linesFor('"x-latin"', withHeaders({ 'x-latin': 'caf\u00e9' })), {
    message: 'the covered header x-latin is not plain ASCII',
  });
});
