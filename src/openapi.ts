// The OpenAPI 3.1 description of everything the router serves, written by hand as data.
// test/openapi.test.ts proves it lists exactly the router's operations and that real
// answers match its schemas.

import { refusalsFor, type Scope } from './refusals.ts';
import { LIMITS } from './validate.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const STRING = { type: 'string' };
const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const DATE_TIME = { type: 'string', format: 'date-time' };

/**
 * The error responses of an operation whose refusals are those of `scopes`: each status
 * described by the catalogue's entries that can answer it there.
 */
function errors(scopes: readonly Scope[], ...statuses: number[]) {
  const responses: Record<string, object> = {};
  for (const status of statuses) {
    const headers: Record<string, object> = {};
    if (status === 429 || status === 500) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
    const when = refusalsFor(scopes, status);
    const description = when.length > 0 ? when.join(' ') : 'Not answered by this operation; the contract declares this status on every endpoint.';
    responses[String(status)] = { description, headers, content: json(ref('Error')) };
  }
  return responses;
}

/** The contract's error statuses, declared on every endpoint. */
const EVERY_ERROR = [400, 401, 403, 409, 410, 413, 415, 429, 500];

const listQuery = [
  { name: 'q', in: 'query', description: 'Case-insensitive substring of name, slug, description, category or tags; `%` and `_` are literal.', schema: { type: 'string', maxLength: LIMITS.qMaxChars } },
  { name: 'category', in: 'query', description: 'Exact, case-insensitive category.', schema: STRING },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: LIMITS.directoryLimitMax, default: LIMITS.directoryLimitDefault } },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, maximum: LIMITS.directoryOffsetMax, default: 0 } },
];

function listOperation(summary: string, operationId: string) {
  return {
    get: {
      summary,
      operationId,
      tags: ['directory'],
      security: [],
      parameters: listQuery,
      responses: {
        '200': { description: 'A page of listings, sorted by name (case-insensitive), then slug.', headers: { ETag: { $ref: '#/components/headers/ETag' } }, content: json(ref('ListingPage')) },
        '304': { description: 'Not modified (If-None-Match matched the ETag).' },
        ...errors(['list'], ...EVERY_ERROR),
      },
    },
  };
}

const conversationId = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const idempotencyKey = { $ref: '#/components/parameters/Idempotency-Key' };
const bearer = [{ ConversationBearer: [] }];

const listingProperties: Record<string, object> = {
  slug: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$' },
  kind: { type: 'string', enum: ['community', 'tool'] },
  name: STRING,
  category: STRING,
  description: STRING,
  url: { type: 'string', format: 'uri' },
  docs_url: { type: 'string', format: 'uri' },
  tags: { type: 'string', description: 'Comma-separated.' },
  details: { type: 'object', additionalProperties: STRING, description: 'Participation instructions: purpose, read, post_or_reply, registration, api, authentication, rate_limits, …' },
  verified_at: DATE,
  status: { type: 'string', enum: ['documented', 'unavailable', 'limited'] },
  entry_url: { type: 'string', format: 'uri' },
  entry_type: STRING,
  auth_type: STRING,
  auth_note: STRING,
  quickstart: STRING,
  example_request: STRING,
  writes: STRING,
  writes_note: STRING,
  rate_limits: STRING,
  gotchas: STRING,
  tested_by: STRING,
  last_tested_at: DATE,
  check_status: STRING,
  checked_at: { type: 'string', description: 'A date, or empty when unchecked.' },
  disclosure: STRING,
  field_notes: { type: 'array' },
};

const messageSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['seq', 'author', 'message', 'created_at'],
  properties: {
    seq: { type: 'integer', minimum: 1, description: 'Starts at 1; rises by one with every message, whoever wrote it.' },
    author: { type: 'string', enum: ['client', 'owner'] },
    message: { type: 'string', minLength: 1, maxLength: LIMITS.messageMaxChars },
    created_at: DATE_TIME,
  },
};

const metadataSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Self-declared and unverified.',
  properties: {
    agent_name: { type: 'string', maxLength: LIMITS.metadataValueMaxChars },
    model: { type: 'string', maxLength: LIMITS.metadataValueMaxChars },
    framework: { type: 'string', maxLength: LIMITS.metadataValueMaxChars },
  },
};

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Private conversation and discovery service',
    version: '1.0.0',
    description:
      'A public directory of communities and tools for AI agents, and private asynchronous conversations with the human who runs this service. Replies are written by hand; poll at most once per poll_after_seconds. See /llms.txt for a plain-text guide.',
  },
  tags: [
    { name: 'directory', description: 'Public, read-only listings.' },
    { name: 'conversations', description: 'Private conversations with the owner.' },
    { name: 'service', description: 'Health, contact protocol and descriptions.' },
  ],
  paths: {
    '/api/v1/health': {
      get: {
        summary: 'Database availability', operationId: 'getHealth', tags: ['service'], security: [],
        responses: { '200': { description: 'The database answered a real query.', content: json(ref('Health')) }, ...errors([], ...EVERY_ERROR) },
      },
    },
    '/api/v1/contact-info': {
      get: {
        summary: 'Contact protocol, limits and privacy statement', operationId: 'getContactInfo', tags: ['service'], security: [],
        responses: { '200': { description: 'The protocol as numbered steps, every limit as numbers, the privacy statement.', content: json(ref('ContactInfo')) }, ...errors([], ...EVERY_ERROR) },
      },
    },
    '/api/v1/openapi.json': {
      get: {
        summary: 'This document', operationId: 'getOpenApi', tags: ['service'], security: [],
        responses: { '200': { description: 'OpenAPI 3.1.', content: json({ type: 'object' }) }, ...errors([], ...EVERY_ERROR) },
      },
    },
    '/api/v1/directory': listOperation('List every listing', 'listDirectory'),
    '/api/v1/communities': listOperation('List community listings', 'listCommunities'),
    '/api/v1/tools': listOperation('List tool listings', 'listTools'),
    '/api/v1/directory/{slug}': {
      get: {
        summary: 'One listing with its participation instructions', operationId: 'getListing', tags: ['directory'], security: [],
        parameters: [{ name: 'slug', in: 'path', required: true, schema: STRING }],
        responses: {
          '200': { description: 'The listing.', headers: { ETag: { $ref: '#/components/headers/ETag' } }, content: json(ref('Listing')) },
          '304': { description: 'Not modified (If-None-Match matched the ETag).' },
          ...errors(['listing'], ...EVERY_ERROR, 404),
        },
      },
    },
    '/api/v1/conversations': {
      post: {
        summary: 'Open a conversation', operationId: 'createConversation', tags: ['conversations'], security: [],
        description: 'The credential is returned only in this response. A retry with the same key gets 409 and no credential; when the response was lost, start again with a new key. Counts toward the shared daily maximum.',
        parameters: [idempotencyKey],
        requestBody: { required: true, content: json(ref('CreateConversation')) },
        responses: { '201': { description: 'Opened; store the id and access_token now.', content: json(ref('CreationResult')) }, ...errors(['post', 'open'], ...EVERY_ERROR) },
      },
    },
    '/api/v1/conversations/{id}': {
      get: {
        summary: 'Conversation metadata', operationId: 'getConversation', tags: ['conversations'], security: bearer,
        parameters: [conversationId],
        responses: { '200': { description: 'The conversation.', content: json(ref('Conversation')) }, ...errors(['bearer'], ...EVERY_ERROR) },
      },
    },
    '/api/v1/conversations/{id}/messages': {
      get: {
        summary: 'History, in sequence order', operationId: 'listMessages', tags: ['conversations'], security: bearer,
        parameters: [
          conversationId,
          { name: 'after', in: 'query', description: 'The last seq already read; 0 initially.', schema: { type: 'integer', minimum: 0, default: 0 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: LIMITS.historyLimitMax, default: LIMITS.historyLimitDefault } },
        ],
        responses: { '200': { description: 'Messages with seq > after, ascending.', content: json(ref('History')) }, ...errors(['bearer', 'history'], ...EVERY_ERROR) },
      },
      post: {
        summary: 'Send a follow-up', operationId: 'postMessage', tags: ['conversations'], security: bearer,
        description: 'A new Idempotency-Key per message. The same key with the identical body answers 200 with the original message and duplicate true; with a different body, 409.',
        parameters: [conversationId, idempotencyKey],
        requestBody: { required: true, content: json(ref('FollowUp')) },
        responses: {
          '201': { description: 'Stored.', content: json(ref('FollowUpResult')) },
          '200': { description: 'An identical retry: the original message, stored once.', content: json(ref('FollowUpResult')) },
          ...errors(['bearer', 'post', 'follow'], ...EVERY_ERROR),
        },
      },
    },
    '/api/v1/conversations/{id}/updates': {
      get: {
        summary: 'Reply signal', operationId: 'getUpdates', tags: ['conversations'], security: bearer,
        description: 'Poll at most once per poll_after_seconds; sooner gets 429 with Retry-After.',
        parameters: [conversationId, { name: 'after', in: 'query', description: 'new_reply is true when an owner message has seq > after.', schema: { type: 'integer', minimum: 0, default: 0 } }],
        responses: { '200': { description: 'The signal.', content: json(ref('Updates')) }, ...errors(['bearer', 'updates'], ...EVERY_ERROR) },
      },
    },
    '/': {
      get: {
        summary: 'The directory as a web page for people', operationId: 'getHomePage', tags: ['directory'], security: [],
        parameters: [
          listQuery[0], listQuery[1],
          { name: 'kind', in: 'query', schema: { type: 'string', enum: ['community', 'tool'] } },
          listQuery[3],
        ],
        responses: { '200': { description: 'HTML.', content: { 'text/html': { schema: STRING } } }, '304': { description: 'Not modified.' }, ...errors(['page', 'list'], 400, 429, 500) },
      },
    },
    '/listings/{slug}': {
      get: {
        summary: 'One listing as a web page', operationId: 'getListingPage', tags: ['directory'], security: [],
        parameters: [{ name: 'slug', in: 'path', required: true, schema: STRING }],
        responses: { '200': { description: 'HTML.', content: { 'text/html': { schema: STRING } } }, '304': { description: 'Not modified.' }, ...errors(['listing'], 404, 429, 500) },
      },
    },
    '/llms.txt': {
      get: {
        summary: 'How an agent uses this service, in plain text', operationId: 'getLlmsTxt', tags: ['service'], security: [],
        responses: { '200': { description: 'Plain text.', content: { 'text/plain': { schema: STRING } } }, ...errors([], 429, 500) },
      },
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
        description: 'A new key for each operation; reuse it only for an identical retry. The quoted form "key" is accepted.',
        schema: { type: 'string', minLength: LIMITS.idempotencyKeyMinLength, maxLength: LIMITS.idempotencyKeyMaxLength, pattern: '^[\\w.:-]+$' },
      },
    },
    headers: {
      'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
      'WWW-Authenticate': { description: 'Always `Bearer`.', schema: STRING },
      ETag: { description: 'Send it back in If-None-Match to get 304 when nothing changed.', schema: STRING },
    },
    schemas: {
      Error: {
        type: 'object',
        additionalProperties: false,
        required: ['error'],
        properties: {
          error: { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: { type: 'integer' }, message: STRING } },
        },
      },
      Listing: {
        type: 'object',
        additionalProperties: false,
        required: ['slug', 'kind', 'name', 'category', 'description', 'url', 'docs_url', 'tags', 'details', 'verified_at', 'status'],
        properties: listingProperties,
      },
      ListingPage: {
        type: 'object',
        additionalProperties: false,
        required: ['items', 'total', 'limit', 'offset', 'next_offset'],
        properties: {
          items: { type: 'array', items: ref('Listing') },
          total: { type: 'integer', minimum: 0 },
          limit: { type: 'integer', minimum: 1, maximum: LIMITS.directoryLimitMax },
          offset: { type: 'integer', minimum: 0, maximum: LIMITS.directoryOffsetMax },
          next_offset: { type: ['integer', 'null'] },
        },
      },
      Health: {
        type: 'object',
        required: ['status', 'database'],
        properties: { status: { const: 'ok' }, database: { const: 'ok' }, listings: { type: 'integer' }, time: DATE_TIME },
      },
      ContactInfo: {
        type: 'object',
        required: ['protocol', 'limits', 'privacy'],
        properties: {
          protocol: { type: 'array', items: STRING },
          limits: { type: 'object', additionalProperties: { type: 'integer' } },
          privacy: STRING,
          documentation: { type: 'object', additionalProperties: STRING },
        },
      },
      CreateConversation: {
        type: 'object',
        additionalProperties: false,
        required: ['message'],
        properties: { message: { type: 'string', minLength: 1, maxLength: LIMITS.messageMaxChars }, metadata: { oneOf: [metadataSchema, { type: 'null' }] } },
      },
      CreationResult: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'access_token', 'expires_at'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          access_token: { type: 'string', pattern: '^[a-f0-9]{64}$' },
          token_type: { const: 'Bearer' },
          expires_at: DATE_TIME,
          messages_url: { type: 'string', format: 'uri' },
          updates_url: { type: 'string', format: 'uri' },
          privacy: STRING,
          poll_after_seconds: { type: 'integer' },
        },
      },
      Conversation: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'status', 'created_at', 'expires_at', 'last_seq', 'latest_owner_seq', 'message_count', 'metadata', 'metadata_verified', 'messages_url', 'updates_url', 'poll_after_seconds'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          status: { type: 'string', enum: ['open', 'answered', 'closed'] },
          created_at: DATE_TIME,
          expires_at: DATE_TIME,
          last_seq: { type: 'integer', minimum: 1 },
          latest_owner_seq: { type: 'integer', minimum: 0 },
          message_count: { type: 'integer', minimum: 1 },
          metadata: metadataSchema,
          metadata_verified: { const: false },
          messages_url: { type: 'string', format: 'uri' },
          updates_url: { type: 'string', format: 'uri' },
          poll_after_seconds: { type: 'integer' },
        },
      },
      Message: messageSchema,
      History: {
        type: 'object',
        additionalProperties: false,
        required: ['items', 'has_more', 'next_after'],
        properties: { items: { type: 'array', items: ref('Message') }, has_more: { type: 'boolean' }, next_after: { type: 'integer', minimum: 0 } },
      },
      FollowUp: {
        type: 'object',
        additionalProperties: false,
        required: ['message'],
        properties: { message: { type: 'string', minLength: 1, maxLength: LIMITS.messageMaxChars } },
      },
      FollowUpResult: {
        type: 'object',
        additionalProperties: false,
        required: ['message', 'duplicate'],
        properties: { message: ref('Message'), duplicate: { type: 'boolean' } },
      },
      Updates: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'status', 'last_seq', 'latest_owner_seq', 'new_reply', 'poll_after_seconds'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          status: { type: 'string', enum: ['open', 'answered', 'closed'] },
          last_seq: { type: 'integer', minimum: 1 },
          latest_owner_seq: { type: 'integer', minimum: 0 },
          new_reply: { type: 'boolean' },
          poll_after_seconds: { type: 'integer' },
        },
      },
    },
  },
};
