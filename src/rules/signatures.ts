// A signature authorizes one write. A Web Bot Auth signature covers this service's authority and the
// agent's key directory, seldom the body, so anyone who saw one request (a proxy, a log) could replay
// it within its validity to store messages of their own "verified" as that agent, and spend its site's
// share. So the signature (its SHA-256) of every stored message is kept, in the write's transaction,
// until it expires, and another write carrying it is refused. Reads are not limited this way. An
// unsigned write has no signature to judge: the rules ask here only for a signed one.

import { refuse } from '../refusals/refusal.ts';
import type { Store } from '../store/store.ts';

/** A Web Bot Auth signature as a write uses it: its SHA-256 (hex), and when it expires (epoch ms). */
export interface SignatureUse {
  readonly digest: string;
  readonly expiresAt: number;
}

/**
 * Used signatures kept at once, at most. With a daily maximum the writes cap them (a signature lives a
 * day at most, so at most twice the maximum are kept); this bounds them when the maximum is off or huge.
 */
export const MAX_USED_SIGNATURES = 100_000;

/**
 * Refuses a signature that expired before its write (401 signature_invalid), one that already
 * authorized a stored message (401 signature_replayed), or, when as many are kept as may be, any new
 * one (503 signatures_full); expired ones are forgotten first.
 */
export function refuseUsedSignature(store: Store, signature: SignatureUse, at: number, maximum: number): void {
  // It was judged valid before the body arrived; once expired its record is forgotten, so a write after
  // that could not be told from a replay: none is stored.
  if (signature.expiresAt <= at) {
    const expired = new Date(signature.expiresAt).toISOString();
    throw refuse('signature_invalid', `it expired at ${expired}, before its write was stored; sign the request again`);
  }
  const used = store.usedSignatures;
  used.forgetExpired(at);
  if (used.find(signature.digest) !== undefined) throw refuse('signature_replayed');
  if (maximum !== 0 && 2 * maximum <= MAX_USED_SIGNATURES) return; // the maximum bounds them
  const held = used.held();
  if (held.count >= MAX_USED_SIGNATURES) {
    throw refuse('signatures_full', MAX_USED_SIGNATURES, ((held.soonest ?? at) - at) / 1000);
  }
}

/** Records that a signature authorized a stored message, in the write's transaction. */
export function recordSignature(store: Store, signature: SignatureUse, conversationId: string, seq: number) {
  store.usedSignatures.record(signature.digest, signature.expiresAt, conversationId, seq);
}
