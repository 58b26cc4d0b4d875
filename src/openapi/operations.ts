// The parts the OpenAPI document's operations are made of: each operation's error responses,
// described from the refusal catalogue for the refusals it can give, and the parameters
// several operations share.

import { BOUNDS } from '../base/contract.ts';
import { json, ref, STRING, UUID } from './schemas.ts';
import type { Scope } from '../refusals/entry.ts';
import { refusalsFor } from '../refusals/refusal.ts';

/** The contract's error statuses, declared on every endpoint. */
export const EVERY_ERROR = [400, 401, 403, 409, 410, 413, 415, 429, 500];

/** The error responses of an operation whose refusals are those of `scopes`. */
export function errors(scopes: readonly Scope[], statuses: readonly number[]) {
  const responses: Record<string, object> = {};
  for (const status of statuses) {
    const headers: Record<string, object> = {};
    const retries = status === 429 || status === 500 || status === 503;
    if (retries) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
    const refusals = refusalsFor(scopes, status);
    const description =
      refusals.length > 0
        ? refusals.map(({ reason, when }) => `\`${reason}\`: ${when}`).join(' ')
        : 'Not answered by this operation; the contract declares this status on every endpoint.';
    responses[String(status)] = { description, headers, content: json(ref('Error')) };
  }
  return responses;
}

interface Operation {
  readonly summary: string;
  readonly tag: 'directory' | 'conversations' | 'service';
  readonly ok: Record<string, object>;
  readonly scopes: readonly Scope[];
  readonly statuses?: readonly number[];
  readonly bearer?: boolean;
  /** judges a Web Bot Auth signature: its headers, its refusals, and 503 when its key directory is unreachable */
  readonly signed?: boolean;
  readonly parameters?: readonly object[];
  readonly body?: string;
  readonly description?: string;
}

export function operation(operationId: string, o: Operation) {
  const parameters = [...(o.parameters ?? []), ...(o.signed ? SIGNATURE_HEADERS : [])];
  const scopes = o.signed ? [...o.scopes, 'signed' as const] : o.scopes;
  const statuses = o.statuses ?? (o.signed ? [...EVERY_ERROR, 503] : EVERY_ERROR);
  return {
    summary: o.summary,
    operationId,
    tags: [o.tag],
    security: o.bearer ? [{ ConversationBearer: [] }] : [],
    ...(o.description && { description: o.description }),
    ...(parameters.length > 0 && { parameters }),
    ...(o.body && { requestBody: { required: true, content: json(ref(o.body)) } }),
    responses: { ...o.ok, ...errors(scopes, statuses) },
  };
}

const optionalHeader = (name: string, description: string) => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: { type: 'string' },
});

/** A Web Bot Auth signature's three headers (RFC 9421): optional; an unsigned request is served as before. */
const SIGNATURE_HEADERS = [
  optionalHeader(
    'Signature-Agent',
    'Web Bot Auth: the https URL of your key directory\'s origin, sig1="https://agent.example" (or the legacy ' +
      '"https://agent.example"). Optional: sign to be shown to the owner as verified and to get a share of your own.',
  ),
  optionalHeader(
    'Signature-Input',
    'sig1=("@authority" "signature-agent";key="sig1");created=…;expires=…;keyid="<JWK thumbprint>";' +
      'tag="web-bot-auth", with @authority the host of this service\'s public URL.',
  ),
  optionalHeader('Signature', 'sig1=:<base64 Ed25519 signature of the RFC 9421 signature base>:'),
];

export const cached = (description: string, schema: object) => ({
  '200': { description, headers: { ETag: { $ref: '#/components/headers/ETag' } }, content: json(schema) },
  '304': { description: 'Not modified (If-None-Match matched the ETag).' },
});
export const html = (description: string) => ({
  '200': { description, content: { 'text/html': { schema: STRING } } },
  '304': { description: 'Not modified.' },
});
export const integerParameter = (
  name: string,
  minimum: number,
  maximum: number | undefined,
  fallback: number,
  description?: string,
) => ({
  name,
  in: 'query',
  ...(description && { description }),
  schema: { type: 'integer', minimum, ...(maximum !== undefined && { maximum }), default: fallback },
});
export const listQuery = [
  {
    name: 'q',
    in: 'query',
    description:
      'Words separated by white space; a listing matches when each word is a case-insensitive substring of its ' +
      'name, slug, description, category or tags; `%` and `_` are literal.',
    schema: { type: 'string', maxLength: BOUNDS.qMaxChars },
  },
  { name: 'category', in: 'query', description: 'Exact, case-insensitive category.', schema: STRING },
  integerParameter('limit', 1, BOUNDS.directoryLimitMax, BOUNDS.directoryLimitDefault),
  integerParameter('offset', 0, BOUNDS.directoryOffsetMax, 0),
];
export const slug = { name: 'slug', in: 'path', required: true, schema: STRING };
export const id = { name: 'id', in: 'path', required: true, schema: UUID };
export const key = { $ref: '#/components/parameters/Idempotency-Key' };
export const after = (description: string) => integerParameter('after', 0, undefined, 0, description);
export const list = (summary: string, operationId: string) => ({
  get: operation(operationId, {
    summary,
    tag: 'directory',
    parameters: listQuery,
    ok: cached('A page of listings, sorted by name (case-insensitive), then slug.', ref('ListingPage')),
    scopes: ['list'],
  }),
});
