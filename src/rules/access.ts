// Who may use a conversation: the credential in the one Authorization header, looked up by its
// SHA-256, for the conversation a request names, and the conversation's state (blocked,
// expired). Every door, and every rule that writes, asks here.

import { hash } from 'node:crypto';
import { refuse } from '../refusals/refusal.ts';
import type { Conversation } from '../store/store.ts';
import { conversationId, isCredentialShaped } from './validate.ts';

/** Where a credential's conversation is found: the store, or a cache of it (runtime/credential-cache.ts). */
export interface CredentialLookup {
  /** The conversation whose credential has this SHA-256 (hex), as the database holds it now. */
  lookup(digest: string): Conversation | undefined;
}

/** The credential of the one Authorization header; none when there are several (Node keeps only the first). */
export function bearerCredential(rawHeaders: readonly string[]): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] as string);
  }
  if (values.length !== 1) return undefined;
  return /^bearer +(\S+)$/i.exec(values[0] as string)?.[1]; // the scheme is case-insensitive
}

/** The SHA-256 of a credential, in hex: the only form in which it is stored (as bytes) or looked up. */
export const digestOf = (token: string): string => hash('sha256', token);

/**
 * The conversation a credential opens, checked in the contract's order: no credential or
 * a malformed one (401), one that matches nothing (401), an id that is not a UUID (400),
 * another conversation's id (403), a blocked conversation (403), an expired credential (410).
 */
export function authenticate(
  credentials: CredentialLookup,
  token: string | undefined,
  rawId: unknown,
  at: number,
): Conversation {
  const conversation = credentialOwner(credentials, token);
  if (conversationId(rawId) !== conversation.id) throw refuse('other_conversation');
  return usableConversation(conversation, at);
}

/**
 * The conversation a credential opens, whichever it is (A2A names no conversation in the
 * path): 401 for no or an unknown credential, 403 blocked, 410 expired.
 */
export function conversationOfCredential(
  credentials: CredentialLookup,
  token: string | undefined,
  at: number,
): Conversation {
  return usableConversation(credentialOwner(credentials, token), at);
}

function credentialOwner(credentials: CredentialLookup, token: string | undefined): Conversation {
  if (!isCredentialShaped(token)) throw refuse('no_credential');
  const conversation = credentials.lookup(digestOf(token));
  if (!conversation) throw refuse('unknown_credential');
  return conversation;
}

/**
 * A conversation that may still be used, checked wherever one is about to be: 401 when it is
 * gone (purged since its credential was looked up), 403 when the owner blocked it, 410 once
 * its credential expired.
 */
export function usableConversation(conversation: Conversation | undefined, at: number): Conversation {
  if (!conversation) throw refuse('unknown_credential');
  if (conversation.blocked) throw refuse('blocked');
  if (Date.parse(conversation.expires_at) <= at) throw refuse('expired', conversation.expires_at);
  return conversation;
}
