// Verified agents (Web Bot Auth): the identity a request's signature proves, judged once for every
// door after the request rate and the Origin/Host checks and before anything else of the request.
// An unsigned request is served as before, with nothing fetched; a signed one is read from its
// headers (400 when they do not parse), judged for what needs no key (401: expired, not yet
// valid, another algorithm), then its key is looked up in the agent's key directory, fetched
// through the outbound guard and kept within bounds (identity/key-directory.ts; 503 when it
// cannot be fetched), and its Ed25519 signature checked over the base rebuilt from this
// service's own public authority (401 when it does not verify).

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SERVICE_VERSION } from '../base/version.ts';
import {
  KeyDirectoryBusy,
  KeyDirectories,
  MAX_DIRECTORY_BYTES,
  type KeyDirectoryAnswer,
} from '../identity/key-directory.ts';
import { judgeBeforeKey, judgeSignature, readSignature, type SignedRequest } from '../identity/signed-request.ts';
import { sendOutbound, type OutboundPolicy } from '../outbound/guard.ts';
import { OutboundBusy } from '../outbound/lookups.ts';
import { isAllowedHost } from '../outbound/policy.ts';
import { refuse } from '../refusals/refusal.ts';
import { networkOf } from '../rules/rates.ts';
import type { SignatureUse } from '../rules/signatures.ts';

const KEY_DIRECTORY_TIMEOUT_MS = 5_000; // a key directory answers at once; an agent's request waits for it
const KEY_DIRECTORY_TYPES =
  'application/http-message-signatures-directory+json, application/jwk-set+json, application/json';

/** What verifying needs of the app: its key directories, its outbound rules, its public URL, its clock. */
export interface Verifier {
  readonly keyDirectories: KeyDirectories;
  readonly outboundPolicy: OutboundPolicy;
  readonly config: { readonly publicBaseUrl: string };
  now(): number;
}

const KEY_DIRECTORY_LOOKUPS = 1; // the fourth of libuv's threads (outbound/lookups.ts): deliveries keep their three

/**
 * The agents' key directories, fetched only through the outbound guard, with a lookup budget of their
 * own: no name a signed request chooses can hold the lookups that deliveries and registrations need.
 */
export function createKeyDirectories(policy: OutboundPolicy): KeyDirectories {
  const own: OutboundPolicy = { ...policy, lookups: { inFlight: 0, max: KEY_DIRECTORY_LOOKUPS } };
  return new KeyDirectories({ fetchKeyDirectory: (url) => fetchKeyDirectory(url, own) });
}

async function fetchKeyDirectory(url: URL, policy: OutboundPolicy): Promise<KeyDirectoryAnswer> {
  const userAgent = `agent-contact-service/${SERVICE_VERSION} (key directory)`;
  const headers = { accept: KEY_DIRECTORY_TYPES, 'user-agent': userAgent };
  const maxBodyBytes = MAX_DIRECTORY_BYTES + 1; // one byte more: a body that fills it is too large
  const request = { method: 'GET' as const, headers, timeoutMs: KEY_DIRECTORY_TIMEOUT_MS, maxBodyBytes };
  try {
    return await sendOutbound(url, request, policy);
  } catch (err) {
    if (err instanceof OutboundBusy) throw new KeyDirectoryBusy(err.message);
    throw err;
  }
}

/** A verified request's signer: the identity, and the signature as a write uses it (rules/signatures.ts). */
export interface Verified {
  readonly identity: string;
  readonly signature: SignatureUse;
}

/**
 * The identity the request's signature proves, or null when it is unsigned (then nothing is
 * fetched, and nothing is awaited). Refuses with signature_malformed, signature_invalid or
 * key_directory_unavailable.
 */
export function verifyAgent(app: Verifier, req: IncomingMessage, address: string): null | Promise<Verified> {
  const reading = readSignature(req.headersDistinct, (url) => isAllowedHost(url, app.outboundPolicy));
  if (reading.kind === 'unsigned') return null;
  if (reading.kind === 'malformed') throw refuse('signature_malformed', reading.problem);
  const early = judgeBeforeKey(reading, app.now());
  if (early) throw refuse('signature_invalid', early.problem);
  return withKey(app, req, reading, networkOf(address));
}

async function withKey(app: Verifier, req: IncomingMessage, signed: SignedRequest, client: string): Promise<Verified> {
  const found = await app.keyDirectories.keyFor(signed.keyDirectoryUrl, signed.params.keyid, app.now(), client);
  if (found.kind === 'busy') {
    const problem = 'too many key directories are being fetched at once (or from your address)';
    throw refuse('key_directory_unavailable', problem, found.retryAfterSeconds);
  }
  if (found.kind === 'unavailable') throw refuse('key_directory_unavailable', found.problem, found.retryAfterSeconds);
  const key = found.kind === 'key' ? found.key : undefined;
  const judged = judgeSignature(signed, requestFacts(app, req), key);
  if (judged.kind === 'invalid') throw refuse('signature_invalid', judged.problem);
  const digest = createHash('sha256').update(signed.signature).digest('hex');
  return { identity: judged.identity, signature: { digest, expiresAt: signed.params.expires * 1000 } };
}

/** The request as a signature covers it: this service's own public scheme and authority, never Host. */
function requestFacts(app: Verifier, req: IncomingMessage) {
  const base = new URL(app.config.publicBaseUrl);
  const target = req.url ?? '/';
  const mark = target.indexOf('?');
  return {
    method: req.method ?? 'GET',
    authority: base.host,
    scheme: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
    path: mark === -1 ? target : target.slice(0, mark),
    query: mark === -1 ? '' : target.slice(mark),
    headers: req.headersDistinct,
  };
}
