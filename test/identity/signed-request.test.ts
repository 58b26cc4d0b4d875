// Every outcome of the table of docs/verified-agents.md that the headers and the key decide: unsigned, each
// malformed case (400), each invalid case (401), verified. Requests are signed by
// http-message-signatures (test/identity/signing.ts), not by this service's code.

import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { test } from 'node:test';
import {
  judgeBeforeKey,
  readSignature,
  type SignatureReading,
  type SignedRequest,
} from '../../src/identity/signed-request.ts';
import {
  agentKey,
  CREATED,
  judgeAt,
  noHttpHosts,
  NOW,
  serviceRequest,
  signRequest,
  SERVICE_AUTHORITY,
} from './signing.ts';

const KEY = agentKey();
const OTHER_KEY = agentKey();

function signed(reading: SignatureReading): SignedRequest {
  assert.equal(reading.kind, 'signed', reading.kind === 'malformed' ? reading.problem : reading.kind);
  return reading as SignedRequest;
}

function problemOf(reading: SignatureReading): string {
  assert.equal(reading.kind, 'malformed');
  return (reading as { problem: string }).problem;
}

/** Headers of a valid request, with some replaced or removed (undefined). */
async function validWith(changes: Record<string, string | undefined> = {}) {
  const headers: Record<string, string | string[] | undefined> = await signRequest({ key: KEY });
  for (const [name, value] of Object.entries(changes)) headers[name] = value;
  return headers;
}

test('a request without a web-bot-auth Signature-Input is unsigned, whatever else it carries', async () => {
  const valid = await signRequest({ key: KEY });
  const unsigned = [
    {},
    { 'signature-agent': 'sig1="https://agent.example"', signature: valid.signature },
    { 'signature-input': 'sig1=("@authority");created=1;keyid="k";tag="other-profile"' },
    { 'signature-input': 'sig1=("@authority");created=1;keyid="k"' },
    { 'signature-input': 'sig1=("@authority");created=1;keyid="k";tag=web-bot-auth' }, // a token, not the string
  ];
  for (const headers of unsigned) assert.deepEqual(readSignature(headers, noHttpHosts), { kind: 'unsigned' });
});

test('a valid signature in the dictionary form is verified as its origin, with its well-known directory', async () => {
  const headers = await signRequest({ key: KEY });
  const reading = signed(readSignature(headers, noHttpHosts));
  assert.equal(reading.label, 'sig1');
  assert.deepEqual(reading.covered, [{ name: '@authority' }, { name: 'signature-agent', key: 'sig1' }]);
  const params = { created: CREATED, expires: CREATED + 300, keyid: KEY.keyid, alg: 'ed25519', tag: 'web-bot-auth' };
  assert.deepEqual(reading.params, params);
  assert.equal(reading.agentUrl, 'https://agent.example/');
  assert.equal(reading.identity, 'https://agent.example');
  assert.equal(reading.keyDirectoryUrl, 'https://agent.example/.well-known/http-message-signatures-directory');
  assert.equal(reading.signature.length, 64);
  const request = serviceRequest({ ...headers, host: 'evil.example' }); // Host is never what is checked
  assert.deepEqual(judgeAt(reading, request, KEY.publicKey, NOW), {
    kind: 'verified',
    identity: 'https://agent.example',
  });
});

test('the legacy string Signature-Agent is a member keyed to the label, covered as plain signature-agent', async () => {
  const headers = await signRequest({
    key: KEY,
    label: 'sig2',
    fields: ['@authority', 'signature-agent'],
    headers: { 'Signature-Agent': '"https://agent.example"' },
  });
  const reading = signed(readSignature(headers, noHttpHosts));
  assert.equal(reading.identity, 'https://agent.example');
  assert.equal(judgeAt(reading, serviceRequest(headers), KEY.publicKey, NOW).kind, 'verified');
});

test('a URL with a path is fetched itself as the JWK Set, without its query, which no identity keeps', async () => {
  const headers = await signRequest({
    key: KEY,
    headers: { 'Signature-Agent': 'sig1="https://agent.example/keys/jwks.json?v=2#frag"' },
  });
  const reading = signed(readSignature(headers, noHttpHosts));
  assert.equal(reading.keyDirectoryUrl, 'https://agent.example/keys/jwks.json');
  assert.equal(reading.identity, 'https://agent.example/keys/jwks.json');
  const agent = (value: string) => signRequest({ key: KEY, headers: { 'Signature-Agent': value } });
  const typed = await agent('sig1="https://agent.example/";type=jwks_uri');
  assert.equal(signed(readSignature(typed, noHttpHosts)).keyDirectoryUrl, 'https://agent.example/');
  const origin = await agent('sig1="https://Agent.Example:8443";type=directory');
  assert.equal(signed(readSignature(origin, noHttpHosts)).identity, 'https://agent.example:8443');
});

test('the first web-bot-auth signature in Signature-Input order is the one judged, others ignored', async () => {
  const agent = { 'Signature-Agent': 'sig2="https://second.example"' };
  const headers = await signRequest({ key: KEY, label: 'sig2', headers: agent });
  headers['signature-input'] = `other=("@method");created=1;tag="other-profile", ${headers['signature-input']}, ` +
    'sig3=("@authority" "signature-agent";key="sig3");created=1;keyid="x";tag="web-bot-auth"';
  const reading = signed(readSignature(headers, noHttpHosts));
  assert.equal(reading.label, 'sig2');
  assert.equal(judgeAt(reading, serviceRequest(headers), KEY.publicKey, NOW).kind, 'verified');
});

test('more covered components are each checked, with @target-uri standing for @authority', async () => {
  const headers = await signRequest({
    key: KEY,
    url: `https://${SERVICE_AUTHORITY}/api/v1/conversations/abc?wait=30`,
    fields: ['@method', '@target-uri', '@path', '@query', 'content-type', 'signature-agent;key="sig1"'],
    headers: { 'Content-Type': 'application/json', 'Signature-Agent': 'sig1="https://agent.example"' },
  });
  const reading = signed(readSignature(headers, noHttpHosts));
  const request = serviceRequest(headers, { path: '/api/v1/conversations/abc', query: '?wait=30' });
  assert.equal(judgeAt(reading, request, KEY.publicKey, NOW).kind, 'verified');
  const otherPath = judgeAt(reading, { ...request, path: '/api/v1/conversations/xyz' }, KEY.publicKey, NOW);
  assert.equal(otherPath.kind, 'invalid');
  const otherHeaders = { ...headers, 'content-type': 'text/plain' };
  const otherType = signed(readSignature(otherHeaders, noHttpHosts)); // fields are read with the signature
  assert.equal(judgeAt(otherType, { ...request, headers: otherHeaders }, KEY.publicKey, NOW).kind, 'invalid');
});

test('an agent URL over http is read only for a host the caller allows', async () => {
  const headers = await signRequest({ key: KEY, headers: { 'Signature-Agent': 'sig1="http://127.0.0.1:8080"' } });
  assert.match(problemOf(readSignature(headers, noHttpHosts)), /must use https \(http is only for the hosts and ports/);
  const otherPort = readSignature(headers, (url) => url.host === '127.0.0.1:9000');
  assert.match(problemOf(otherPort), /must use https/, 'a port the owner did not allow is refused as malformed');
  const allowed = signed(readSignature(headers, (url) => url.host === '127.0.0.1:8080'));
  assert.equal(allowed.keyDirectoryUrl, 'http://127.0.0.1:8080/.well-known/http-message-signatures-directory');
});

test('each malformed request is answered with the problem to fix', async () => {
  const input = (params: string, components = '"@authority" "signature-agent";key="sig1"') =>
    `sig1=(${components})${params};tag="web-bot-auth"`;
  const good = `;created=${CREATED};expires=${CREATED + 300};keyid="${KEY.keyid}"`;
  const times = (expires: number) => `;created=${CREATED};expires=${expires};keyid="x"`;
  const cases: Array<[Record<string, string | undefined>, RegExp]> = [
    [{ 'signature-input': 'sig1=("@authority"' }, /^Signature-Input is not a valid structured field: an inner list/],
    [{ 'signature-input': input(`;expires=${CREATED + 300};keyid="${KEY.keyid}"`) }, /must carry created=/],
    [{ 'signature-input': input(`;created=${CREATED};keyid="${KEY.keyid}"`) }, /must carry expires=/],
    [{ 'signature-input': input(`;created=${CREATED};expires=${CREATED + 300}`) }, /must carry keyid=/],
    [{ 'signature-input': input(`;created="${CREATED}";expires=1;keyid="x"`) }, /created must be a whole number/],
    [{ 'signature-input': input(times(CREATED - 1)) }, /expires must not be before/],
    [{ 'signature-input': input(times(CREATED + 86_401)) }, /at most 86400 s after created \(it is 86401 s\)/],
    [{ 'signature-input': input(`;created=${CREATED};expires=${CREATED + 1};keyid="test-key"`) }, /not an RFC 7638/],
    [{ 'signature-input': input(`${good};alg=ed25519`) }, /^alg must be a string/],
    [{ 'signature-input': input(`${good};nonce=1`) }, /^nonce must be a string/],
    [{ 'signature-input': input(good, '"signature-agent";key="sig1"') }, /must cover "@authority" \(or "@target/],
    [{ 'signature-input': input(good, '"@authority"') }, /must cover "signature-agent";key="sig1"$/],
    [{ 'signature-input': input(good, '"@authority" "signature-agent";key="sig9"') }, /must cover "signature-agent";/],
    [{ 'signature-input': input(good, '"@authority" "x-covered"') }, /must cover "signature-agent";key="sig1"/],
    [{ 'signature-input': input(good, '"@authority" "signature-agent" "x-gone"') }, /covered header x-gone is missing/],
    [{ 'signature-input': input(good, '"@authority" "signature-agent" "@query-param";name="a"') }, /@query-param/],
    [{ signature: undefined }, /^the Signature header is missing/],
    [{ signature: 'sig2=:AAAA:' }, /^the Signature header has no member sig1$/],
    [{ signature: 'sig1="abc"' }, /must be a byte sequence/],
    [{ signature: 'sig1=:AAAA:' }, /must hold 64 bytes \(Ed25519\)/],
    [{ 'signature-agent': undefined }, /^the Signature-Agent header is missing/],
    [{ 'signature-agent': 'sig2="https://agent.example"' }, /Signature-Agent has no member sig1/],
    [{ 'signature-agent': 'sig1=("https://agent.example")' }, /must be a string holding a URL/],
    [{ 'signature-agent': 'sig1=agent' }, /must be a string holding a URL/],
    [{ 'signature-agent': 'sig1="not a url"' }, /the Signature-Agent value "not a url" is not an absolute URL/],
    [{ 'signature-agent': 'sig1="ftp://agent.example"' }, /must use https$/],
    [{ 'signature-agent': 'sig1="https://u:p@agent.example"' }, /must not hold a user name or password/],
    [{ 'signature-agent': 'sig1="https://agent.example./"' }, /host must not end with a dot/],
    [{ 'signature-input': 'sig1=?1;tag="web-bot-auth"' }, /signature sig1 must be a list of covered components/],
    [{ 'signature-agent': `sig1="https://agent.example/${'x'.repeat(2048)}"` }, /at most 2048 characters/],
    [{ 'signature-agent': 'sig1="https://agent.example/card";type=cimd' }, /type cimd, which this service does not/],
    [{ 'signature-agent': 'sig1="https://agent.example/a";type=directory' }, /type=directory, so it must be an origin/],
    [{ 'signature-agent': '"https://agent.example", "https://b.example"' }, /has text after its value/],
  ];
  for (const [changes, message] of cases) {
    const problem = problemOf(readSignature(await validWith(changes), noHttpHosts));
    assert.match(problem, message, JSON.stringify(changes));
  }
});

test('the legacy string form covered with ;key= is refused: it is covered as plain signature-agent', async () => {
  const headers = await validWith({ 'signature-agent': '"https://agent.example"' });
  assert.equal(
    problemOf(readSignature(headers, noHttpHosts)),
    'the signature sig1 must cover "signature-agent" (the legacy string form)',
  );
});

test('a problem never repeats more than 100 characters of what the client sent, nor the signature', async () => {
  const long = `"https://${'a'.repeat(300)}.example/${'p'.repeat(300)}";type=${'t'.repeat(300)}`;
  const headers = await validWith({ 'signature-agent': `sig1=${long}` });
  const problem = problemOf(readSignature(headers, noHttpHosts));
  assert.ok(!problem.includes('t'.repeat(101)), problem);
  const inputs = [
    `sig1=("@${'z'.repeat(500)}");tag="web-bot-auth"`,
    `sig1=("@authority" "x-${'z'.repeat(500)}");tag="web-bot-auth"`,
    `sig1=("@authority" "x-${'z'.repeat(500)}" "signature-agent");created=1;expires=2;keyid="${KEY.keyid}"` +
      ';tag="web-bot-auth"',
    `s${'z'.repeat(500)}=("@authority");tag="web-bot-auth"`,
  ];
  for (const input of inputs) {
    const refused = problemOf(readSignature(await validWith({ 'signature-input': input }), noHttpHosts));
    assert.ok(!refused.includes('z'.repeat(101)), refused);
  }
  // A signature that does not verify lists the covered components: cut short, though each is checked.
  const field = `x-${'z'.repeat(500)}`;
  const covering = await signRequest({ key: KEY, fields: ['@authority', field, 'signature-agent;key="sig1"'],
    headers: { 'Signature-Agent': 'sig1="https://agent.example"', [field]: 'v' } });
  const reading = signed(readSignature(covering, noHttpHosts));
  const elsewhere = serviceRequest(covering, { authority: 'other.example' });
  const judged = judgeAt(reading, elsewhere, KEY.publicKey, NOW);
  const cut = `"@authority" "${field}" "signature-agent";key="sig1"`.slice(0, 100);
  assert.ok(judged.kind === 'invalid' && judged.problem.includes(`in this order: ${cut}…; compare`), judged.kind);
  assert.ok(!judged.problem.includes(reading.signature.toString('base64')));
});

test('each invalid signature is refused with the reason, in the order time, algorithm, key, signature', async () => {
  const headers = await signRequest({ key: KEY });
  const reading = signed(readSignature(headers, noHttpHosts));
  const request = serviceRequest(headers);
  const judge = (key: KeyObject | undefined, now = NOW, facts = request) => judgeAt(reading, facts, key, now);
  const expiredAt = (reading.params.expires + 1) * 1000;
  const expiry = new Date((CREATED + 300) * 1000).toISOString().replace('.000Z', 'Z');
  assert.deepEqual(judge(KEY.publicKey, expiredAt), {
    kind: 'invalid',
    problem: `the signature expired at ${expiry}; sign the request again`,
  });
  assert.equal(judge(KEY.publicKey, reading.params.expires * 1000).kind, 'verified', 'valid up to expires');
  assert.equal(judge(KEY.publicKey, (CREATED - 60) * 1000).kind, 'verified', 'valid from created - 60 s');
  const early = judge(KEY.publicKey, (CREATED - 61) * 1000);
  assert.ok(early.kind === 'invalid' && /created time .* is ahead of this service's clock by more than 60 s/.test(
    early.problem,
  ));
  assert.deepEqual(judge(undefined), {
    kind: 'invalid',
    problem:
      'the key directory https://agent.example/.well-known/http-message-signatures-directory has no Ed25519 key ' +
      `whose JWK thumbprint is the keyid ${KEY.keyid}`,
  });
  // It names what the base was rebuilt from, to compare with what was signed, and guesses no cause.
  const rebuilt = (authority: string) =>
    `the signature does not verify over the base this service rebuilt: authority ${authority} (this service's ` +
    'public host, whatever Host says), covered components in this order: "@authority" "signature-agent";key="sig1"; ' +
    'compare each line with the base you signed';
  assert.deepEqual(judge(OTHER_KEY.publicKey), { kind: 'invalid', problem: rebuilt('contact.example') });
  const forAnotherHost = serviceRequest(headers, { authority: 'other.example' });
  assert.deepEqual(judge(KEY.publicKey, NOW, forAnotherHost), { kind: 'invalid', problem: rebuilt('other.example') });
  const impostor = { ...headers, 'signature-agent': 'sig1="https://impostor.example"' };
  const tampered = signed(readSignature(impostor, noHttpHosts));
  assert.equal(judgeAt(tampered, serviceRequest(impostor), KEY.publicKey, NOW).kind, 'invalid');
});

test('an alg other than ed25519 is refused before any key is needed', async () => {
  const headers = await signRequest({ key: KEY, paramValues: { alg: 'rsa-pss-sha512' } });
  const reading = signed(readSignature(headers, noHttpHosts));
  const problem = "the signature's alg is rsa-pss-sha512; this service accepts ed25519 only";
  const refusal = { kind: 'invalid', problem };
  assert.deepEqual(judgeBeforeKey(reading, NOW), refusal);
  assert.deepEqual(judgeAt(reading, serviceRequest(headers), KEY.publicKey, NOW), refusal);
  const withoutAlg = await signRequest({ key: KEY, params: ['created', 'expires', 'keyid', 'tag'] });
  const plain = signed(readSignature(withoutAlg, noHttpHosts));
  assert.equal(plain.params.alg, undefined);
  assert.equal(judgeBeforeKey(plain, NOW), undefined, 'alg is not required');
  assert.equal(judgeAt(plain, serviceRequest(withoutAlg), KEY.publicKey, NOW).kind, 'verified');
});

test('a nonce and parameters this service does not know are kept in the base, so they stay signed', async () => {
  const headers = await signRequest({
    key: KEY,
    params: ['created', 'keyid', 'nonce', 'expires', 'custom', 'tag'],
    paramValues: { nonce: 'bm9uY2U=', custom: 'x' },
  });
  const reading = signed(readSignature(headers, noHttpHosts));
  assert.equal(reading.params.nonce, 'bm9uY2U=');
  const inOrder = /;created=\d+;keyid="[^"]+";nonce="bm9uY2U=";expires=\d+;custom="x";tag="web-bot-auth"$/;
  assert.match(reading.signatureParams, inOrder);
  assert.equal(judgeAt(reading, serviceRequest(headers), KEY.publicKey, NOW).kind, 'verified');
  const changed = { ...reading, signatureParams: reading.signatureParams.replace('custom="x"', 'custom="y"') };
  assert.equal(judgeAt(changed, serviceRequest(headers), KEY.publicKey, NOW).kind, 'invalid');
});
