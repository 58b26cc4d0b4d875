// Test helpers: requests signed by http-message-signatures (an RFC 9421 implementation by another
// author, a dev dependency), so the verifier is never checked against its own idea of the base.

import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createSigner, httpbis } from 'http-message-signatures';
import { jwkThumbprint, type Ed25519Jwk } from '../../src/identity/jwk.ts';
import type { RequestHeaders } from '../../src/identity/request-fields.ts';
import type { SignedRequestFacts } from '../../src/identity/signature-base.ts';
import {
  judgeBeforeKey,
  judgeSignature,
  type Judgement,
  type SignedRequest,
} from '../../src/identity/signed-request.ts';

export const SERVICE_AUTHORITY = 'contact.example';
export const SERVICE_PATH = '/api/v1/conversations';
export const NOW = Date.UTC(2026, 10, 26, 12, 0, 0); // ms
export const CREATED = NOW / 1000 - 10; // UNIX seconds
export const noHttpHosts = (): boolean => false;

export interface AgentKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly jwk: Ed25519Jwk & { readonly d: string };
  readonly keyid: string;
}

/** A fresh Ed25519 key pair with its public JWK and thumbprint. */
export function agentKey(): AgentKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as AgentKey['jwk'];
  return { privateKey, publicKey, jwk, keyid: jwkThumbprint(jwk) };
}

export interface SignOptions {
  readonly key: AgentKey;
  readonly label?: string;
  /** component identifiers as http-message-signatures writes them: `signature-agent;key="sig1"` */
  readonly fields?: readonly string[];
  /** the request's headers besides the signature's; a Signature-Agent in dictionary form by default */
  readonly headers?: Record<string, string | string[]>;
  readonly created?: number;
  readonly expires?: number;
  /** signature parameters in order; `alg` comes from the key (ed25519) */
  readonly params?: readonly string[];
  readonly paramValues?: Record<string, string | number>;
  readonly url?: string;
  readonly method?: string;
}

/** The request's headers, lower-cased as Node gives them, with Signature and Signature-Input added. */
export async function signRequest(options: SignOptions): Promise<Record<string, string | string[]>> {
  const label = options.label ?? 'sig1';
  const created = options.created ?? CREATED;
  const signed = await httpbis.signMessage(
    {
      key: createSigner(options.key.privateKey, 'ed25519', options.key.keyid),
      name: label,
      fields: [...(options.fields ?? ['@authority', `signature-agent;key="${label}"`])],
      params: [...(options.params ?? ['created', 'expires', 'keyid', 'alg', 'tag'])],
      paramValues: {
        created: new Date(created * 1000),
        expires: new Date((options.expires ?? created + 300) * 1000),
        tag: 'web-bot-auth',
        ...options.paramValues,
      },
    },
    {
      method: options.method ?? 'POST',
      url: options.url ?? `https://${SERVICE_AUTHORITY}${SERVICE_PATH}`,
      headers: options.headers ?? { 'Signature-Agent': `${label}="https://agent.example"` },
    },
  );
  return lowerCased(signed.headers);
}

/** Header names lower-cased, as Node's `req.headers` has them. */
export function lowerCased(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The request as the service sees it: its own authority, whatever Host says. */
export function serviceRequest(
  headers: RequestHeaders,
  overrides: Partial<SignedRequestFacts> = {},
): SignedRequestFacts {
  return {
    method: 'POST',
    authority: SERVICE_AUTHORITY,
    scheme: 'https',
    path: SERVICE_PATH,
    query: '',
    headers,
    ...overrides,
  };
}

/** A read signature judged as the service does at a moment: its times and alg first, then with the key. */
export function judgeAt(
  signed: SignedRequest,
  request: SignedRequestFacts,
  key: KeyObject | undefined,
  now: number,
): Judgement {
  return judgeBeforeKey(signed, now) ?? judgeSignature(signed, request, key);
}
