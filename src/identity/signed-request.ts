// Web Bot Auth on a request, as docs/verified-agents.md says, in two steps around the key lookup.
// readSignature reads the headers alone: unsigned, malformed (400), or a signature with the agent
// whose key directory to ask. judgeSignature then checks time, algorithm, key and the Ed25519
// signature over the RFC 9421 base rebuilt from this service's own authority: invalid (401) or
// verified with the agent's identity. Problems name what to fix; they never repeat more than 100
// characters of what the client sent, nor the signature itself.

import { verify, type KeyObject } from 'node:crypto';
import { readSignatureAgent } from './signature-agent.ts';
import { excerpt, HeaderProblem } from './problems.ts';
import { combinedField, type RequestHeaders } from './request-fields.ts';
import {
  componentIdentifier,
  fieldValues,
  parseCoveredComponents,
  signatureBase,
  type Component,
  type SignedRequestFacts,
} from './signature-base.ts';
import { parseDictionary, serializeInnerList, type Dictionary, type InnerList } from './structured-fields.ts';

export const WEB_BOT_AUTH_TAG = 'web-bot-auth';
export const MAX_VALIDITY_SECONDS = 86_400; // verified-agents.md: expires − created at most a day
export const CLOCK_SKEW_SECONDS = 60; // valid from created − 60 s, for signers' clocks that run ahead
const ED25519_SIGNATURE_BYTES = 64;
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/; // a base64url SHA-256: what an RFC 7638 keyid must be
const MAX_UNIX_SECONDS = 253_402_300_799; // 9999-12-31T23:59:59Z: later is no date

export interface SignatureParams {
  readonly created: number; // UNIX seconds
  readonly expires: number; // UNIX seconds
  readonly keyid: string;
  readonly alg?: string;
  readonly nonce?: string;
  readonly tag: typeof WEB_BOT_AUTH_TAG;
}

/** A web-bot-auth signature read from the headers, to be judged once its key is looked up. */
export interface SignedRequest {
  readonly kind: 'signed';
  readonly label: string;
  readonly covered: readonly Component[];
  readonly params: SignatureParams;
  /** the Signature-Input member re-serialized: the base's `"@signature-params"` value */
  readonly signatureParams: string;
  readonly signature: Buffer;
  /** the covered header fields' values, read once, as the base writes them */
  readonly fields: ReadonlyMap<string, string>;
  readonly agentUrl: string;
  readonly identity: string;
  readonly keyDirectoryUrl: string;
}

export type SignatureReading =
  { readonly kind: 'unsigned' } | { readonly kind: 'malformed'; readonly problem: string } | SignedRequest;
export type Invalid = { readonly kind: 'invalid'; readonly problem: string };
export type Judgement = { readonly kind: 'verified'; readonly identity: string } | Invalid;

/**
 * The first web-bot-auth signature of the request (Signature-Input order), read and checked as far
 * as the headers allow; `isAllowedHttp` says which agent URLs may use http (their host and port allowed,
 * for tests and intranets).
 */
export function readSignature(headers: RequestHeaders, isAllowedHttp: (url: URL) => boolean): SignatureReading {
  try {
    const input = combinedField(headers, 'signature-input');
    if (input === undefined) return { kind: 'unsigned' };
    const chosen = firstWebBotAuth(parseDictionary(input, 'Signature-Input'));
    if (chosen === undefined) return { kind: 'unsigned' };
    return readChosen(headers, chosen.label, chosen.list, isAllowedHttp);
  } catch (err) {
    // The parsers refuse with a HeaderProblem; anything else (a TypeError) is a bug, not the client's.
    if (!(err instanceof HeaderProblem)) throw err;
    return { kind: 'malformed', problem: err.message };
  }
}

function firstWebBotAuth(input: Dictionary): { label: string; list: InnerList } | undefined {
  for (const [label, member] of input) {
    const tag = member.params.get('tag');
    if (tag?.type !== 'string' || tag.value !== WEB_BOT_AUTH_TAG) continue;
    // Tagged for Web Bot Auth but not a list of components: a broken signature, never an unsigned request.
    if (member.kind !== 'inner-list') {
      const shape = '("@authority" …)';
      throw new HeaderProblem(`the signature ${excerpt(label)} must be a list of covered components, ${shape}`);
    }
    return { label, list: member };
  }
  return undefined;
}

function readChosen(
  headers: RequestHeaders,
  label: string,
  list: InnerList,
  isAllowedHttp: (url: URL) => boolean,
): SignedRequest {
  const shown = excerpt(label); // a label is any dictionary key: it is repeated cut short
  const covered = parseCoveredComponents(list);
  const params = readParams(list, shown);
  const signature = readSignatureBytes(headers, label, params.alg);
  const agent = readSignatureAgent(headers, label, isAllowedHttp);
  const names = covered.map((component) => component.name);
  if (!names.includes('@authority') && !names.includes('@target-uri')) {
    throw new HeaderProblem(`the signature ${shown} must cover "@authority" (or "@target-uri")`);
  }
  // A dictionary member is covered by its key, or with the whole field (as web-bot-auth 0.1.3 signs by default).
  const agentCovered = covered.some(
    (c) => c.name === 'signature-agent' && (c.key === undefined || (!agent.legacy && c.key === label)),
  );
  if (!agentCovered) {
    const needed = excerpt(componentIdentifier(agent.component)) + (agent.legacy ? ' (the legacy string form)' : '');
    throw new HeaderProblem(`the signature ${shown} must cover ${needed}`);
  }
  const fields = fieldValues(covered, headers); // a covered field the request lacks is refused now, not later
  const { agentUrl, identity, keyDirectoryUrl } = agent;
  const signatureParams = serializeInnerList(list);
  return {
    kind: 'signed',
    label,
    covered,
    params,
    signatureParams,
    signature,
    fields,
    agentUrl,
    identity,
    keyDirectoryUrl,
  };
}

function readParams(list: InnerList, shown: string): SignatureParams {
  const integer = (name: string): number => {
    const value = list.params.get(name);
    if (value === undefined) throw new HeaderProblem(`the signature ${shown} must carry ${name}= (UNIX seconds)`);
    if (value.type !== 'integer' || value.value < 0 || value.value > MAX_UNIX_SECONDS) {
      throw new HeaderProblem(`${name} must be a whole number of UNIX seconds`);
    }
    return value.value;
  };
  const text = (name: string): string | undefined => {
    const value = list.params.get(name);
    if (value === undefined) return undefined;
    if (value.type !== 'string') throw new HeaderProblem(`${name} must be a string (in double quotes)`);
    return value.value;
  };
  const created = integer('created');
  const expires = integer('expires');
  if (expires < created) throw new HeaderProblem('expires must not be before created');
  if (expires - created > MAX_VALIDITY_SECONDS) {
    throw new HeaderProblem(
      `expires must be at most ${MAX_VALIDITY_SECONDS} s after created (it is ${expires - created} s)`,
    );
  }
  const keyid = text('keyid');
  if (keyid === undefined)
    throw new HeaderProblem(`the signature ${shown} must carry keyid= (its key's JWK thumbprint)`);
  if (!THUMBPRINT.test(keyid)) {
    throw new HeaderProblem(
      `keyid ${excerpt(keyid)} is not an RFC 7638 JWK SHA-256 thumbprint (43 base64url characters)`,
    );
  }
  const alg = text('alg');
  const nonce = text('nonce');
  return {
    created,
    expires,
    keyid,
    ...(alg === undefined ? {} : { alg }),
    ...(nonce === undefined ? {} : { nonce }),
    tag: WEB_BOT_AUTH_TAG,
  };
}

function readSignatureBytes(headers: RequestHeaders, label: string, alg: string | undefined): Buffer {
  const shown = excerpt(label);
  const field = combinedField(headers, 'signature');
  if (field === undefined) throw new HeaderProblem(`the Signature header is missing (Signature-Input names ${shown})`);
  const member = parseDictionary(field, 'Signature').get(label);
  if (member === undefined) throw new HeaderProblem(`the Signature header has no member ${shown}`);
  if (member.kind !== 'item' || member.value.type !== 'bytes') {
    throw new HeaderProblem(`the Signature member ${shown} must be a byte sequence (:base64:)`);
  }
  // Another alg's signature has another length; judgeBeforeKey refuses it by its alg (401, not 400).
  const ed25519 = alg === undefined || alg === 'ed25519';
  if (ed25519 && member.value.value.length !== ED25519_SIGNATURE_BYTES) {
    throw new HeaderProblem(`the Signature member ${shown} must hold ${ED25519_SIGNATURE_BYTES} bytes (Ed25519)`);
  }
  return member.value.value;
}

/**
 * The refusals that need no key (algorithm, expired, not yet valid): judged once, when the request
 * arrives and before a key directory is fetched, so a stale or foreign signature costs no fetch (and
 * one valid on arrival stays so while its key directory is fetched).
 */
export function judgeBeforeKey(signed: SignedRequest, now: number): Invalid | undefined {
  const { alg, created, expires } = signed.params;
  if (alg !== undefined && alg !== 'ed25519') {
    return invalid(`the signature's alg is ${excerpt(alg)}; this service accepts ed25519 only`);
  }
  if (now > expires * 1000) {
    return invalid(`the signature expired at ${iso(expires)}; sign the request again`);
  }
  if (now < (created - CLOCK_SKEW_SECONDS) * 1000) {
    const ahead = `ahead of this service's clock by more than ${CLOCK_SKEW_SECONDS} s`;
    return invalid(`the signature's created time ${iso(created)} is ${ahead}; check the signer's clock`);
  }
  return undefined;
}

/**
 * Judges a signature that judgeBeforeKey passed, with the key its key directory gave for keyid (undefined:
 * none): verified with the agent's identity, or invalid with the reason.
 */
export function judgeSignature(
  signed: SignedRequest,
  request: SignedRequestFacts,
  key: KeyObject | undefined,
): Judgement {
  if (key === undefined || key.asymmetricKeyType !== 'ed25519') {
    return invalid(
      `the key directory ${excerpt(signed.keyDirectoryUrl)} has no Ed25519 key whose JWK thumbprint is ` +
        `the keyid ${signed.params.keyid}`,
    );
  }
  let base: string;
  try {
    base = signatureBase(signed.covered, signed.signatureParams, request, signed.fields);
  } catch (err) {
    if (!(err instanceof HeaderProblem)) throw err;
    return invalid(err.message);
  }
  if (!verify(null, Buffer.from(base, 'latin1'), key, signed.signature)) return doesNotVerify(signed, request);
  return { kind: 'verified', identity: signed.identity };
}

/**
 * A signature that does not verify names what the base was rebuilt from, the service's authority and the
 * covered components in order, for the signer to compare with its own base: no guess at the cause.
 */
function doesNotVerify(signed: SignedRequest, request: SignedRequestFacts): Invalid {
  const covered = excerpt(signed.covered.map(componentIdentifier).join(' ')); // identifiers are the client's
  return invalid(
    `the signature does not verify over the base this service rebuilt: authority ${request.authority} ` +
      `(this service's public host, whatever Host says), covered components in this order: ${covered}; ` +
      'compare each line with the base you signed',
  );
}

function invalid(problem: string): Invalid {
  return { kind: 'invalid', problem };
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
