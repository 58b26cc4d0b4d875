// Requests signed by two independent implementations, installed as dev dependencies, verified here
// in both Signature-Agent forms: web-bot-auth 0.1.3 (Cloudflare's, what agents use today, on
// WebCrypto) and http-message-signatures 1.0.6 (a general RFC 9421 implementation by another author).
// The web-bot-auth tests hold what docs/verified-agents.md says of it.
// Covers: src/identity/signed-request.ts, src/identity/signature-base.ts, src/identity/structured-fields.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { readSignature, type SignedRequest } from '../../src/identity/signed-request.ts';
import {
  agentKey,
  CREATED,
  judgeAt,
  lowerCased,
  noHttpHosts,
  NOW,
  serviceRequest,
  SERVICE_AUTHORITY,
  SERVICE_PATH,
  signRequest,
} from './signing.ts';

const KEY = agentKey();
const SERVICE_URL = `https://${SERVICE_AUTHORITY}${SERVICE_PATH}`;

/** Reads and judges a request's headers as the service would, with the agent's key found. */
function judged(headers: Record<string, string | string[]>, facts = serviceRequest(headers)) {
  const reading = readSignature(headers, noHttpHosts);
  assert.equal(reading.kind, 'signed', reading.kind === 'malformed' ? reading.problem : reading.kind);
  const signed = reading as SignedRequest;
  return { signed, judgement: judgeAt(signed, facts, KEY.publicKey, NOW) };
}

/** Headers of a request signed by web-bot-auth for this service, with the given Signature-Agent and label. */
async function cloudflareSigned(
  agent: string,
  components?: Parameters<typeof signatureHeaders>[2]['components'],
  label = 'sig1',
) {
  const signer = await signerFromJWK(KEY.jwk);
  assert.equal(signer.keyid, KEY.keyid, 'Cloudflare computes the same RFC 7638 thumbprint');
  const request = new Request(SERVICE_URL, { method: 'POST', headers: { 'Signature-Agent': agent } });
  const signature = await signatureHeaders(request, signer, {
    created: new Date(CREATED * 1000),
    expires: new Date((CREATED + 300) * 1000),
    key: label, // the option names the signature's label (Signature-Input's member), not a component
    ...(components === undefined ? {} : { components }),
  });
  return lowerCased({ 'Signature-Agent': agent, ...signature });
}

test('web-bot-auth 0.1.3 covering one member (a key parameter) signs the whole field: it does not verify', async () => {
  // A component with a key parameter (not the `key` option, which names the label): its http-message-sig
  // 0.2.0 puts `"signature-agent";key="sig1": sig1="https://agent.example"` in the base, where RFC 9421
  // section 2.1.2 (and the draft's vectors) have the member alone. Fixed in the repository since
  // (cloudflare/web-bot-auth 6d03bc5, 2026-05-26), in no release web-bot-auth 0.1.3 accepts.
  const components = ['@authority', { name: 'signature-agent', parameters: new Map([['key', 'sig1']]) }];
  const headers = await cloudflareSigned('sig1="https://agent.example"', components);
  assert.match(headers['signature-input'] as string, /^sig1=\("@authority" "signature-agent";key="sig1"\);created=/);
  const { signed, judgement } = judged(headers);
  assert.ok(signed.params.nonce !== undefined, 'web-bot-auth adds a nonce');
  assert.equal(judgement.kind, 'invalid');
});

test('web-bot-auth signing with the legacy string Signature-Agent, as agents send today, is verified', async () => {
  const headers = await cloudflareSigned('"https://agent.example"'); // its default components
  assert.match(headers['signature-input'] as string, /^sig1=\("@authority" "signature-agent"\);/);
  assert.deepEqual(judged(headers).judgement, { kind: 'verified', identity: 'https://agent.example' });
});

test('web-bot-auth signing a dictionary Signature-Agent covered whole, its default, is verified', async () => {
  const headers = await cloudflareSigned('sig1="https://agent.example/keys.json"');
  assert.match(headers['signature-input'] as string, /^sig1=\("@authority" "signature-agent"\);/);
  const { signed, judgement } = judged(headers);
  assert.equal(signed.keyDirectoryUrl, 'https://agent.example/keys.json');
  assert.deepEqual(judgement, { kind: 'verified', identity: 'https://agent.example/keys.json' });
});

test("web-bot-auth's key option names the signature's label: covering the field whole, it is verified", async () => {
  const headers = await cloudflareSigned('agent="https://agent.example"', undefined, 'agent');
  assert.match(headers['signature-input'] as string, /^agent=\("@authority" "signature-agent"\);created=/);
  assert.match(headers.signature as string, /^agent=:/);
  const { signed, judgement } = judged(headers);
  assert.equal(signed.label, 'agent');
  assert.deepEqual(judgement, { kind: 'verified', identity: 'https://agent.example' });
});

test('web-bot-auth signing for another host does not verify here', async () => {
  const headers = await cloudflareSigned('"https://agent.example"');
  const elsewhere = serviceRequest(headers, { authority: 'other.example' });
  assert.deepEqual(judged(headers, elsewhere).judgement, {
    kind: 'invalid',
    problem:
      'the signature does not verify over the base this service rebuilt: authority other.example (this ' +
      "service's public host, whatever Host says), covered components in this order: " +
      '"@authority" "signature-agent"; compare each line with the base you signed',
  });
});

test('http-message-signatures covering a member among others, sent as two header lines, is verified', async () => {
  const headers = await signRequest({
    key: KEY,
    url: `${SERVICE_URL}?after=3`,
    fields: ['@method', '@authority', '@path', '@query', 'content-digest', 'signature-agent;key="sig1"'],
    headers: {
      'Content-Digest': 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
      'Signature-Agent': ['proxy="https://proxy.example"', 'sig1="https://agent.example";type=directory'],
    },
  });
  const facts = serviceRequest(headers, { query: '?after=3' });
  assert.deepEqual(judged(headers, facts).judgement, { kind: 'verified', identity: 'https://agent.example' });
  const joined = { ...headers, 'signature-agent': (headers['signature-agent'] as string[]).join(', ') };
  assert.equal(judged(joined, { ...facts, headers: joined }).judgement.kind, 'verified', 'as Node joins them');
});

test('http-message-signatures covering @target-uri and the legacy Signature-Agent is verified', async () => {
  const headers = await signRequest({
    key: KEY,
    fields: ['@target-uri', 'signature-agent'],
    headers: { 'Signature-Agent': '"https://agent.example"' },
  });
  assert.deepEqual(judged(headers).judgement, { kind: 'verified', identity: 'https://agent.example' });
});
