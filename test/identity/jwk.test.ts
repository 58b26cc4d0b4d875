// JWK thumbprints against published values, and which members of a JWK Set become keys.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyDirectoryMember, ed25519Jwk, jwkThumbprint } from '../../src/identity/jwk.ts';

// RFC 8037 Appendix A.1 (the public key) and A.3 (its RFC 7638 thumbprint).
const RFC8037_JWK = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } as const;
const RFC8037_THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
// RFC 9421 Appendix B.1.4 (test-key-ed25519, private member included as published); its thumbprint is
// the keyid of the Ed25519 vectors in draft-meunier-webbotauth-httpsig-protocol and cloudflare/web-bot-auth.
const TEST_KEY_ED25519 = {
  kty: 'OKP',
  crv: 'Ed25519',
  kid: 'test-key-ed25519',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
};
const TEST_KEY_ED25519_THUMBPRINT = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';

test('the thumbprint of the RFC 8037 key is the one RFC 8037 Appendix A.3 publishes', () => {
  assert.equal(jwkThumbprint(RFC8037_JWK), RFC8037_THUMBPRINT);
});

test('the thumbprint of test-key-ed25519 is the keyid the Web Bot Auth vectors carry, whatever kid says', () => {
  const found = keyDirectoryMember(TEST_KEY_ED25519);
  assert.equal(found?.thumbprint, TEST_KEY_ED25519_THUMBPRINT);
  assert.equal(found?.key.type, 'public', 'a published private member never makes a private key');
  assert.equal(found?.key.asymmetricKeyType, 'ed25519');
  assert.deepEqual(found?.key.export({ format: 'jwk' }), { kty: 'OKP', crv: 'Ed25519', x: TEST_KEY_ED25519.x });
});

test('members that are not OKP/Ed25519 public keys are skipped, not refused', () => {
  const skipped: unknown[] = [
    null,
    'a string',
    [RFC8037_JWK],
    { kty: 'RSA', n: 'AQAB', e: 'AQAB' },
    { kty: 'EC', crv: 'P-256', x: RFC8037_JWK.x, y: RFC8037_JWK.x },
    { kty: 'OKP', crv: 'X25519', x: RFC8037_JWK.x },
    { kty: 'OKP', crv: 'Ed448', x: RFC8037_JWK.x },
    { kty: 'OKP', crv: 'Ed25519' },
    { kty: 'OKP', crv: 'Ed25519', x: 42 },
    { kty: 'OKP', crv: 'Ed25519', x: `${RFC8037_JWK.x}AAAA` },
    { kty: 'OKP', crv: 'Ed25519', x: RFC8037_JWK.x.replace('_', '/') },
  ];
  for (const member of skipped) {
    assert.equal(ed25519Jwk(member), undefined, JSON.stringify(member));
    assert.equal(keyDirectoryMember(member), undefined, JSON.stringify(member));
  }
});
