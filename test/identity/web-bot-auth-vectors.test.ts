// The published Web Bot Auth test vectors, verified by this service's code. Source:
// cloudflare/web-bot-auth (commit 19fd1209), packages/web-bot-auth/test/test_data/
// web_bot_auth_architecture_v1.json and _v2.json; the same Ed25519 vectors, with their signature
// bases, are in draft-meunier-webbotauth-httpsig-protocol, "Test Vectors" (thibmeu/
// http-message-signatures-directory, commit a28dfe8a). Each was made for the request
// GET https://example.com/path/to/resource with RFC 9421's test-key-ed25519 (or test-key-rsa-pss).
// Covers: src/identity/jwk.ts, src/identity/signature-base.ts, src/identity/signed-request.ts,
// src/identity/structured-fields.ts.

import assert from 'node:assert/strict';
import { verify } from 'node:crypto';
import { test } from 'node:test';
import { keyDirectoryMember } from '../../src/identity/jwk.ts';
import { parseCoveredComponents, signatureBase, type SignedRequestFacts } from '../../src/identity/signature-base.ts';
import { readSignature, type SignedRequest } from '../../src/identity/signed-request.ts';
import { parseDictionary, serializeInnerList, type InnerList } from '../../src/identity/structured-fields.ts';
import { judgeAt, noHttpHosts } from './signing.ts';

// RFC 9421 Appendix B.1.4, the public part of test-key-ed25519.
const TEST_KEY = keyDirectoryMember({ kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' });
const CREATED_MS = 1_735_689_600_000; // created_ms of every vector: 2025-01-01T00:00:00Z
const EXAMPLE: SignedRequestFacts = {
  method: 'GET',
  authority: 'example.com',
  scheme: 'https',
  path: '/path/to/resource',
  query: '',
  headers: {},
};

interface Vector {
  readonly label: string;
  readonly signatureInput: string;
  readonly signature: string;
  readonly signatureAgent?: string;
}

const VECTORS = {
  // web_bot_auth_architecture_v1.json, the Ed25519 vector with the legacy string Signature-Agent.
  V1_ED25519_LEGACY: {
    label: 'sig2',
    signatureInput:
      'sig2=("@authority" "signature-agent");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXB' +
      'CW38r0U";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadI' +
      'X6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"',
    signature:
      'sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:',
    signatureAgent: '"https://signature-agent.test"',
  },
  // web_bot_auth_architecture_v1.json, the Ed25519 vector covering @authority alone.
  V1_ED25519_AUTHORITY: {
    label: 'sig1',
    signatureInput:
      'sig1=("@authority");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25' +
      '519";expires=1735693200;nonce="mYotfW3CUjI68sbGw6oKd7kyXqPjZEtU8xFPGWFrqOAf5qC6MDe3pys3SWWCudB0Mvwsl' +
      'Hy32WXUpkR7u0lt/w==";tag="web-bot-auth"',
    signature:
      'sig1=:+NA/cssf4Y2bQTMTkyvTGRCaVzp9quyUevdwwMtMOWhhOOZ2T1subBj0BtvdnrpDEuwSAbiTeElXDzHL3WWKCw==:',
  },
  // web_bot_auth_architecture_v2.json, the Ed25519 vector with the dictionary Signature-Agent.
  V2_ED25519_DICTIONARY: {
    label: 'sig2',
    signatureInput:
      'sig2=("@authority" "signature-agent";key="agent2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dv' +
      'ez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6' +
      'BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"',
    signature:
      'sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:',
    signatureAgent: 'agent2="https://signature-agent.test"',
  },
  // web_bot_auth_architecture_v2.json, the Ed25519 vector covering @authority alone.
  V2_ED25519_AUTHORITY: {
    label: 'sig1',
    signatureInput:
      'sig1=("@authority");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25' +
      '519";expires=4889289600;nonce="zIW8+cdmA3vdYagbxojpONwa/l0EKJ/O3/wD486VvsQjO/RxPaSt6ZxvQaMcQzNnqKN/m' +
      'Q6hpGiFro2L2qkz5A==";tag="web-bot-auth"',
    signature:
      'sig1=:QKN4fTdIYfh82fvoZCQiQA1weuozfCS/Led2zTMbewMMqH8PI2Wsy/5c4ao6B6D09nraNQdBNOADg8aM1MqfCg==:',
  },
  // web_bot_auth_architecture_v1.json, the RSA-PSS vector with the legacy string Signature-Agent.
  V1_RSA_LEGACY: {
    label: 'sig2',
    signatureInput:
      'sig2=("@authority" "signature-agent");created=1735689600;keyid="oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ' +
      '3Yd-CLA";alg="rsa-pss-sha512";expires=1735693200;nonce="XSHtZVCThSIAksXsH9WBs6AtxtXC0eQGiIcUGSoJstFs' +
      '8lAWakjhrfwzLhyjtme5iXMZvmFWqDEs6cT3Jf+BbQ==";tag="web-bot-auth"',
    signature:
      'sig2=:I1QWNzGXdP1a4dSvOHLCVOOanEYHDk+ZsVxM9MLX/p4ko69ghKwR5EOtAD96g7g4GWP7lmpM/jFAf9q8EFRDTPLjUXySwM' +
      'v4YPgabv2LQihTJG2y8a2m6IGltyruwQNiqSJVUuRaG9+b17CGmAMFZh30X6GXLdQJrCARpeTqPwp2DC+a8haDE/VE5EruqzjA5/' +
      '2mKwvrkzkSqeW5tOVtFwWRRHIOidquf/8Je6kM9mhgkg4arudLA5SL4wyyYE1jURIgcOl8agrfdJ5Def23DIRtiOLRa8jT9cpTLF' +
      'AuFHN+mrZA/LH9h0gSIg1cPb+0cMASee5uku1KjWcFer7jWA==:',
    signatureAgent: '"https://signature-agent.test"',
  },
} satisfies Record<string, Vector>;

function headersOf(vector: Vector): Record<string, string> {
  const headers: Record<string, string> = { 'signature-input': vector.signatureInput, signature: vector.signature };
  if (vector.signatureAgent !== undefined) headers['signature-agent'] = vector.signatureAgent;
  return headers;
}

/** The base and signature bytes of a vector, built by this service's code, without its policy checks. */
function baseAndSignature(vector: Vector): { base: string; signature: Buffer } {
  const headers = headersOf(vector);
  const list = parseDictionary(vector.signatureInput, 'Signature-Input').get(vector.label) as InnerList;
  const base = signatureBase(parseCoveredComponents(list), serializeInnerList(list), { ...EXAMPLE, headers });
  const signature = parseDictionary(vector.signature, 'Signature').get(vector.label);
  assert.ok(signature?.kind === 'item' && signature.value.type === 'bytes');
  return { base, signature: signature.value.value };
}

test('the Web Bot Auth vectors name test-key-ed25519 by its thumbprint', () => {
  assert.equal(TEST_KEY?.thumbprint, 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U');
});

test('every Ed25519 vector verifies with test-key-ed25519 over the base this service rebuilds', () => {
  const ed25519 = [
    VECTORS.V1_ED25519_LEGACY,
    VECTORS.V1_ED25519_AUTHORITY,
    VECTORS.V2_ED25519_DICTIONARY,
    VECTORS.V2_ED25519_AUTHORITY,
  ];
  for (const vector of ed25519) {
    const { base, signature } = baseAndSignature(vector);
    assert.ok(verify(null, Buffer.from(base), TEST_KEY!.key, signature), vector.signatureInput);
    const elsewhere = base.replace('"@authority": example.com', '"@authority": contact.example');
    assert.equal(verify(null, Buffer.from(elsewhere), TEST_KEY!.key, signature), false, 'not for another host');
  }
});

test('the dictionary and legacy vectors have the signature bases the draft publishes', () => {
  assert.equal(
    baseAndSignature(VECTORS.V2_ED25519_DICTIONARY).base,
    [
      '"@authority": example.com',
      '"signature-agent";key="agent2": "https://signature-agent.test"',
      '"@signature-params": ("@authority" "signature-agent";key="agent2");created=1735689600' +
        ';keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600' +
        ';nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA=="' +
        ';tag="web-bot-auth"',
    ].join('\n'),
  );
  assert.equal(
    baseAndSignature(VECTORS.V1_ED25519_LEGACY).base,
    [
      '"@authority": example.com',
      '"signature-agent": "https://signature-agent.test"',
      '"@signature-params": ("@authority" "signature-agent");created=1735689600' +
        ';keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200' +
        ';nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg=="' +
        ';tag="web-bot-auth"',
    ].join('\n'),
  );
});

test('the legacy Ed25519 vector is verified end to end as https://signature-agent.test within its hour', () => {
  const reading = readSignature(headersOf(VECTORS.V1_ED25519_LEGACY), noHttpHosts);
  assert.equal(reading.kind, 'signed');
  const signed = reading as SignedRequest;
  assert.equal(signed.keyDirectoryUrl, 'https://signature-agent.test/.well-known/http-message-signatures-directory');
  assert.equal(signed.params.keyid, TEST_KEY!.thumbprint);
  const request = { ...EXAMPLE, headers: headersOf(VECTORS.V1_ED25519_LEGACY) };
  assert.deepEqual(judgeAt(signed, request, TEST_KEY!.key, CREATED_MS + 60_000), {
    kind: 'verified',
    identity: 'https://signature-agent.test',
  });
  assert.equal(judgeAt(signed, request, TEST_KEY!.key, CREATED_MS + 3_601_000).kind, 'invalid', 'expired');
  const here = { ...request, authority: 'contact.example' };
  const refused = judgeAt(signed, here, TEST_KEY!.key, CREATED_MS);
  assert.match((refused as { problem: string }).problem, /authority contact\.example/);
});

test('the vectors this policy refuses are refused for the reason docs/verified-agents.md gives', () => {
  const problem = (vector: Vector) => {
    const reading = readSignature(headersOf(vector), noHttpHosts);
    return reading.kind === 'malformed' ? reading.problem : reading.kind;
  };
  // Valid for a hundred years: longer than a day.
  const tooLong = 'expires must be at most 86400 s after created (it is 3153600000 s)';
  assert.equal(problem(VECTORS.V2_ED25519_DICTIONARY), tooLong);
  // No Signature-Agent: nothing names the agent.
  assert.match(problem(VECTORS.V1_ED25519_AUTHORITY), /^the Signature-Agent header is missing/);
  // RSA-PSS: read, then refused by its alg (401, not 400), before any key is looked up.
  const rsa = readSignature(headersOf(VECTORS.V1_RSA_LEGACY), noHttpHosts);
  assert.equal(rsa.kind, 'signed');
  const judged = judgeAt(rsa as SignedRequest, EXAMPLE, undefined, CREATED_MS);
  assert.deepEqual(judged, {
    kind: 'invalid',
    problem: "the signature's alg is rsa-pss-sha512; this service accepts ed25519 only",
  });
});
