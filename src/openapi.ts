// The OpenAPI 3.1 description of everything the router serves, written by hand as data. Each
// error status is described from the refusal catalogue for the operations that can give it.
// test/openapi.test.ts proves it lists exactly the router's operations and that real answers
// match its schemas.

import { KEY_PATTERN, LIMITS } from './contract.ts';
import { KINDS } from './listings.ts';
import { json, ref, SCHEMAS, STRING, UUID } from './openapi-schemas.ts';
import { refusalsFor, type Scope } from './refusals.ts';

/** The contract's error statuses, declared on every endpoint. */
const EVERY_ERROR = [400, 401, 403, 409, 410, 413, 415, 429, 500];

/** The error responses of an operation whose refusals are those of `scopes`. */
function errors(scopes: readonly Scope[], statuses: readonly number[]) {
  const responses: Record<string, object> = {};
  for (const status of statuses) {
    const headers: Record<string, object> = {};
    if (status === 429 || status === 500) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
    const when = refusalsFor(scopes, status);
    const description =
      when.length > 0
        ? when.join(' ')
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
  readonly parameters?: readonly object[];
  readonly body?: string;
  readonly description?: string;
}

function operation(operationId: string, o: Operation) {
  return {
    summary: o.summary,
    operationId,
    tags: [o.tag],
    security: o.bearer ? [{ ConversationBearer: [] }] : [],
    ...(o.description && { description: o.description }),
    ...(o.parameters && { parameters: o.parameters }),
    ...(o.body && { requestBody: { required: true, content: json(ref(o.body)) } }),
    responses: { ...o.ok, ...errors(o.scopes, o.statuses ?? EVERY_ERROR) },
  };
}

const cached = (description: string, schema: object) => ({
  '200': { description, headers: { ETag: { $ref: '#/components/headers/ETag' } }, content: json(schema) },
  '304': { description: 'Not modified (If-None-Match matched the ETag).' },
});
const html = (description: string) => ({
  '200': { description, content: { 'text/html': { schema: STRING } } },
  '304': { description: 'Not modified.' },
});
const integerParameter = (
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
const listQuery = [
  {
    name: 'q',
    in: 'query',
    description: 'Case-insensitive substring of name, slug, description, category or tags; `%` and `_` are literal.',
    schema: { type: 'string', maxLength: LIMITS.qMaxChars },
  },
  { name: 'category', in: 'query', description: 'Exact, case-insensitive category.', schema: STRING },
  integerParameter('limit', 1, LIMITS.directoryLimitMax, LIMITS.directoryLimitDefault),
  integerParameter('offset', 0, LIMITS.directoryOffsetMax, 0),
];
const slug = { name: 'slug', in: 'path', required: true, schema: STRING };
const id = { name: 'id', in: 'path', required: true, schema: UUID };
const key = { $ref: '#/components/parameters/Idempotency-Key' };
const after = (description: string) => integerParameter('after', 0, undefined, 0, description);
const list = (summary: string, operationId: string) => ({
  get: operation(operationId, {
    summary,
    tag: 'directory',
    parameters: listQuery,
    ok: cached('A page of listings, sorted by name (case-insensitive), then slug.', ref('ListingPage')),
    scopes: ['list'],
  }),
});

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Private conversation and discovery service',
    version: '1.0.0',
    description:
      'A public directory of communities and tools for AI agents, and private asynchronous conversations with the human who runs this service. Replies are written by hand; poll at most once per poll_after_seconds. See /llms.txt for a plain-text guide.',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  tags: [
    { name: 'mcp', description: 'The Model Context Protocol endpoint.' },
    { name: 'directory', description: 'Public, read-only listings.' },
    { name: 'conversations', description: 'Private conversations with the owner.' },
    { name: 'service', description: 'Health, contact protocol and descriptions.' },
  ],
  paths: {
    '/api/v1/health': {
      get: operation('getHealth', {
        summary: 'Database availability',
        tag: 'service',
        ok: { '200': { description: 'The database answered a real query.', content: json(ref('Health')) } },
        scopes: [],
      }),
    },
    '/api/v1/contact-info': {
      get: operation('getContactInfo', {
        summary: 'Contact protocol, limits and privacy statement',
        tag: 'service',
        ok: {
          '200': {
            description: 'The protocol as numbered steps, every limit as numbers, the privacy statement.',
            content: json(ref('ContactInfo')),
          },
        },
        scopes: [],
      }),
    },
    '/api/v1/openapi.json': {
      get: operation('getOpenApi', {
        summary: 'This document',
        tag: 'service',
        ok: { '200': { description: 'OpenAPI 3.1.', content: json({ type: 'object' }) } },
        scopes: [],
      }),
    },
    '/api/v1/directory': list('List every listing', 'listDirectory'),
    '/api/v1/communities': list('List community listings', 'listCommunities'),
    '/api/v1/tools': list('List tool listings', 'listTools'),
    '/api/v1/directory/{slug}': {
      get: operation('getListing', {
        summary: 'One listing with its participation instructions',
        tag: 'directory',
        parameters: [slug],
        ok: cached('The listing.', ref('Listing')),
        scopes: ['listing'],
        statuses: [...EVERY_ERROR, 404],
      }),
    },
    '/api/v1/conversations': {
      post: operation('createConversation', {
        summary: 'Open a conversation',
        tag: 'conversations',
        parameters: [key],
        body: 'CreateConversation',
        scopes: ['post', 'open'],
        description:
          'The credential is returned only in this response. A retry with the same key gets 409 and no credential; when the response was lost, start again with a new key. Counts toward the shared daily maximum.',
        ok: {
          '201': { description: 'Opened; store the id and access_token now.', content: json(ref('CreationResult')) },
        },
      }),
    },
    '/api/v1/conversations/{id}': {
      get: operation('getConversation', {
        summary: 'Conversation metadata',
        tag: 'conversations',
        bearer: true,
        parameters: [id],
        ok: { '200': { description: 'The conversation.', content: json(ref('Conversation')) } },
        scopes: ['bearer'],
      }),
    },
    '/api/v1/conversations/{id}/messages': {
      get: operation('listMessages', {
        summary: 'History, in sequence order',
        tag: 'conversations',
        bearer: true,
        scopes: ['bearer', 'history'],
        parameters: [
          id,
          after('The last seq already read; 0 initially.'),
          integerParameter('limit', 1, LIMITS.historyLimitMax, LIMITS.historyLimitDefault),
        ],
        ok: { '200': { description: 'Messages with seq > after, ascending.', content: json(ref('History')) } },
      }),
      post: operation('postMessage', {
        summary: 'Send a follow-up',
        tag: 'conversations',
        bearer: true,
        parameters: [id, key],
        body: 'FollowUp',
        scopes: ['bearer', 'post', 'follow'],
        description:
          'A new Idempotency-Key per message. The same key with the identical body answers 200 with the original message and duplicate true; with a different body, 409.',
        ok: {
          '201': { description: 'Stored.', content: json(ref('FollowUpResult')) },
          '200': {
            description: 'An identical retry: the original message, stored once.',
            content: json(ref('FollowUpResult')),
          },
        },
      }),
    },
    '/api/v1/conversations/{id}/updates': {
      get: operation('getUpdates', {
        summary: 'Reply signal',
        tag: 'conversations',
        bearer: true,
        scopes: ['bearer', 'updates'],
        parameters: [id, after('new_reply is true when an owner message has seq > after.')],
        description: 'Poll at most once per poll_after_seconds; sooner gets 429 with Retry-After.',
        ok: { '200': { description: 'The signal.', content: json(ref('Updates')) } },
      }),
    },
    '/': {
      get: operation('getHomePage', {
        summary: 'The directory as a web page for people',
        tag: 'directory',
        parameters: [
          listQuery[0]!,
          listQuery[1]!,
          { name: 'kind', in: 'query', schema: { type: 'string', enum: KINDS } },
          listQuery[3]!,
        ],
        ok: html('HTML.'),
        scopes: ['page', 'list'],
        statuses: [400, 429, 500],
      }),
    },
    '/listings/{slug}': {
      get: operation('getListingPage', {
        summary: 'One listing as a web page',
        tag: 'directory',
        parameters: [slug],
        ok: html('HTML.'),
        scopes: ['listing'],
        statuses: [404, 429, 500],
      }),
    },
    '/mcp': {
      post: {
        summary: 'The MCP endpoint: the same directory and conversations as MCP tools',
        operationId: 'postMcp',
        tags: ['mcp'],
        security: [],
        description:
          'JSON-RPC 2.0 over Streamable HTTP, one JSON answer per request, no sessions. Revisions 2025-11-25 (initialize handshake; also 2025-06-18 and 2025-03-26) and 2026-07-28 (stateless, server/discover). Tools: search_directory, get_listing, open_conversation, send_message, check_updates, read_messages, get_conversation; the credential travels as the access_token argument.',
        requestBody: { required: true, content: json(ref('JsonRpcMessage')) },
        responses: {
          '200': {
            description:
              "A JSON-RPC response: a result, or an error in band (-32601 an unknown method in the 2025 revisions, -32602 an unknown tool). A tool's refusal is a result with isError: true and the REST error body as its text.",
            content: json(ref('JsonRpcMessage')),
          },
          '202': { description: 'A notification or a response: accepted, no body.' },
          '400': {
            description:
              'A JSON-RPC error: -32700 malformed JSON; -32600 not one JSON-RPC 2.0 request (a batch included); -32020 MCP-Protocol-Version, Mcp-Method or Mcp-Name that do not match the body; -32022 an unsupported protocol version, with the supported list; -32602 a 2026-07-28 header without its _meta.',
            content: json(ref('JsonRpcMessage')),
          },
          '404': {
            description: 'A JSON-RPC error -32601: a method the 2026-07-28 revision does not have.',
            content: json(ref('JsonRpcMessage')),
          },
          ...errors(['mcp', 'post'], [403, 413, 415, 429, 500]),
        },
      },
    },
    '/llms.txt': {
      get: operation('getLlmsTxt', {
        summary: 'How an agent uses this service, in plain text',
        tag: 'service',
        ok: { '200': { description: 'Plain text.', content: { 'text/plain': { schema: STRING } } } },
        scopes: [],
        statuses: [429, 500],
      }),
    },
  },
  components: {
    securitySchemes: {
      ConversationBearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'The 64-character access_token from the creation response, only in the Authorization header.',
      },
    },
    parameters: {
      'Idempotency-Key': {
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description:
          'A new key for each operation; reuse it only for an identical retry. The quoted form "key" is accepted.',
        schema: {
          type: 'string',
          minLength: LIMITS.idempotencyKeyMinLength,
          maxLength: LIMITS.idempotencyKeyMaxLength,
          pattern: KEY_PATTERN,
        },
      },
    },
    headers: {
      'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
      'WWW-Authenticate': { description: 'Always `Bearer`.', schema: STRING },
      ETag: { description: 'Send it back in If-None-Match to get 304 when nothing changed.', schema: STRING },
    },
    schemas: SCHEMAS,
  },
};

/** The document as served: `servers` names this service's public base URL (PUBLIC_BASE_URL). */
export function openApiDocument(publicBaseUrl: string) {
  const { openapi, info, ...rest } = OPENAPI_DOCUMENT;
  return { openapi, info, servers: [{ url: publicBaseUrl, description: 'This service' }], ...rest };
}
