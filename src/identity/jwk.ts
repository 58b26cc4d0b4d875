// Ed25519 public keys from a JWK Set: the RFC 7638 thumbprint a signature's keyid must equal (RFC 8037
// Appendix A.3 for OKP keys), and the key itself for node:crypto. Any other kind of key is skipped,
// not refused: a key directory may publish keys for other uses beside the ones that sign requests.

import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

/** The members of an OKP/Ed25519 public JWK that its thumbprint covers. */
export interface Ed25519Jwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
}

/** A key of an agent's key directory, found by its thumbprint. */
export interface KeyDirectoryMember {
  readonly thumbprint: string;
  readonly key: KeyObject;
}

const PUBLIC_KEY = /^[A-Za-z0-9_-]{43}$/; // 32 bytes in base64url without padding (RFC 8037 §2)

/** The RFC 7638 thumbprint: SHA-256 of `{"crv":…,"kty":…,"x":…}` (members in order, no whitespace), base64url. */
export function jwkThumbprint(jwk: Ed25519Jwk): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** The Ed25519 public JWK a JWK Set member holds, or undefined for any other key or a malformed one. */
export function ed25519Jwk(member: unknown): Ed25519Jwk | undefined {
  if (typeof member !== 'object' || member === null) return undefined;
  const { kty, crv, x } = member as Record<string, unknown>;
  if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string' || !PUBLIC_KEY.test(x)) return undefined;
  return { kty, crv, x };
}

/** The key and thumbprint of a JWK Set member, or undefined when it is not an Ed25519 public key. */
export function keyDirectoryMember(member: unknown): KeyDirectoryMember | undefined {
  const jwk = ed25519Jwk(member);
  if (jwk === undefined) return undefined;
  try {
    // Only the public members are passed: a `d` published by mistake must not make this a private key.
    const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
    return { thumbprint: jwkThumbprint(jwk), key };
  } catch {
    return undefined; // not a point Node accepts
  }
}
