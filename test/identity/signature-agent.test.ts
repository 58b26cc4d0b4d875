// One key directory, one identity (src/identity/signature-agent.ts): however an agent spells its
// Signature-Agent, an origin and its explicit well-known URL, a JWK Set URL with a trailing slash, an
// escaped unreserved character, an upper-case host or an explicit default port name one identity and
// one directory, so that no spelling walks around a block or gets a share of its own.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSignature, type SignedRequest } from '../../src/identity/signed-request.ts';
import { agentKey, noHttpHosts, signRequest } from './signing.ts';

const KEY = agentKey();
const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

async function read(agent: string): Promise<SignedRequest> {
  const headers = await signRequest({ key: KEY, headers: { 'Signature-Agent': `sig1="${agent}"` } });
  const reading = readSignature(headers, noHttpHosts);
  assert.equal(reading.kind, 'signed', reading.kind === 'malformed' ? reading.problem : reading.kind);
  return reading as SignedRequest;
}

test('an origin, however spelled, and its explicit well-known URL are one identity and one directory', async () => {
  const spellings = [
    'https://agent.example',
    'https://agent.example/',
    'https://AGENT.Example',
    'https://agent.example:443',
    `https://agent.example${WELL_KNOWN}`,
    `https://agent.example${WELL_KNOWN}/`,
    `https://Agent.example:443${WELL_KNOWN}?v=1#keys`,
    'https://agent.example/.well-known/http-message-signatures-director%79',
  ];
  for (const spelling of spellings) {
    const reading = await read(spelling);
    assert.equal(reading.identity, 'https://agent.example', spelling);
    assert.equal(reading.keyDirectoryUrl, `https://agent.example${WELL_KNOWN}`, spelling);
    assert.equal(reading.agentUrl, new URL(spelling).href, 'the URL sent is kept as sent, for the signature base');
  }
});

test('a JWK Set URL, however spelled, is one identity and the URL fetched', async () => {
  const spellings = [
    'https://keys.example/agents/~scout/jwks',
    'https://keys.example/agents/~scout/jwks/',
    'https://keys.example/agents/~scout/jwks//',
    'https://keys.example/agents/%7Escout/jwks',
    'https://keys.example/agents/%7escout/jwks',
    'https://KEYS.example:443/agents/%7Escout/%6Awks',
    'https://keys.example/agents/~scout/jwks?format=jwks',
    'https://keys.example/agents/./~scout/jwks#x',
  ];
  for (const spelling of spellings) {
    const reading = await read(spelling);
    assert.equal(reading.identity, 'https://keys.example/agents/~scout/jwks', spelling);
    assert.equal(reading.keyDirectoryUrl, reading.identity, spelling);
  }
});

test('escapes of reserved characters stay escapes, in upper case: they name another path', async () => {
  const lower = await read('https://keys.example/a%2fb/jwks');
  const upper = await read('https://keys.example/a%2Fb/jwks');
  assert.equal(lower.identity, 'https://keys.example/a%2Fb/jwks');
  assert.equal(upper.identity, lower.identity);
  assert.notEqual((await read('https://keys.example/a/b/jwks')).identity, lower.identity);
});

test('other ports and other paths stay other identities', async () => {
  const identities = new Set(
    await Promise.all(
      [
        'https://agent.example',
        'https://agent.example:8443',
        'https://agent.example/jwks',
        'https://a.agent.example',
      ].map(async (spelling) => (await read(spelling)).identity),
    ),
  );
  assert.equal(identities.size, 4);
});

test('a URL within 2048 characters as sent but longer once percent-encoded is refused as malformed', async () => {
  const agent = `https://agent.example/${'{'.repeat(1000)}`; // 1,022 characters sent, 3,022 once encoded
  const headers = await signRequest({ key: KEY, headers: { 'Signature-Agent': `sig1="${agent}"` } });
  const reading = readSignature(headers, noHttpHosts);
  assert.equal(reading.kind, 'malformed');
  assert.match(
    (reading as { problem: string }).problem,
    /must be at most 2048 characters once percent-encoded \(it has 3022\)/,
  );
  assert.equal((await read(`https://agent.example/${'{'.repeat(600)}`)).keyDirectoryUrl.length, 22 + 1800);
});
