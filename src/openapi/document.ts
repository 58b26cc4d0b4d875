// The OpenAPI 3.1 description of everything the router serves, written by hand as data. Each
// error status is described from the refusal catalogue for the operations that can give it.
// test/openapi/openapi.test.ts proves it lists exactly the router's operations and that real answers
// match its schemas.

import type { RunningConfig } from '../base/config.ts';
import { KEY_PATTERN, BOUNDS } from '../base/contract.ts';
import { limitSentences } from '../guide/limit-sentences.ts';
import { KINDS } from '../directory/listing-fields.ts';
import { CONVERSATION_PATHS, WEBHOOK_EVENTS } from './conversations.ts';
import { cached, errors, EVERY_ERROR, html, list, listQuery, operation, slug } from './operations.ts';
import { json, ref, SCHEMAS, STRING } from './schemas.ts';
import type { Quotas } from '../rules/quotas.ts';

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Private conversation and discovery service',
    version: '1.0.0',
    description:
      'A public directory of communities and tools for AI agents, and private asynchronous conversations ' +
      'with the human who runs this service. Replies are written by hand; poll at most once per ' +
      'poll_after_seconds, wait for a reply, or register a webhook. See /llms.txt for a plain-text guide.',
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
    ...CONVERSATION_PATHS,
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
          'JSON-RPC 2.0 over Streamable HTTP, one JSON answer per request, no sessions. Revisions ' +
          '2025-11-25 (initialize handshake; also 2025-06-18 and 2025-03-26) and 2026-07-28 (stateless, ' +
          'server/discover). Tools: search_directory, get_listing, open_conversation, send_message, ' +
          'check_updates, read_messages, get_conversation; the credential travels as the access_token argument.',
        requestBody: { required: true, content: json(ref('JsonRpcMessage')) },
        responses: {
          '200': {
            description:
              'A JSON-RPC response: a result, or an error in band (-32601 an unknown method in the 2025 ' +
              "revisions, -32602 an unknown tool). A tool's refusal is a result with isError: true and the " +
              'REST error body as its text.',
            content: json(ref('JsonRpcMessage')),
          },
          '202': { description: 'A notification or a response: accepted, no body.' },
          '400': {
            description:
              'A JSON-RPC error: -32700 malformed JSON; -32600 not one JSON-RPC 2.0 request (a batch ' +
              'included); -32020 MCP-Protocol-Version, Mcp-Method or Mcp-Name that do not match the body; ' +
              '-32022 an unsupported protocol version, with the supported list; -32602 a 2026-07-28 header ' +
              'without its _meta. Or, as the REST error body, `signature_malformed` for a request other than ' +
              'tools/call (a tool call hears of a bad signature as its tool error).',
            content: json({ oneOf: [ref('JsonRpcMessage'), ref('Error')] }),
          },
          '404': {
            description: 'A JSON-RPC error -32601: a method the 2026-07-28 revision does not have.',
            content: json(ref('JsonRpcMessage')),
          },
          ...errors(['mcp', 'post', 'signed'], [401, 403, 413, 415, 429, 500, 503]),
        },
      },
    },
    '/metrics': {
      get: {
        ...operation('getMetrics', {
          summary: 'Counters and gauges in the Prometheus text format, for the owner',
          tag: 'service',
          description: 'Off (404) unless the owner sets METRICS_TOKEN; then only with that token as Bearer.',
          ok: {
            '200': { description: 'Prometheus text format 0.0.4.', content: { 'text/plain': { schema: STRING } } },
          },
          scopes: ['metrics'],
          statuses: [401, 404, 429],
        }),
        security: [{ MetricsBearer: [] }],
      },
    },
    '/.well-known/agent-card.json': {
      get: {
        ...operation('getAgentCard', {
          summary: 'The A2A agent card: how an Agent2Agent client reaches the owner',
          tag: 'service',
          description:
            'A2A 1.0 at /a2a, JSON-RPC and HTTP+JSON (described by this card and the A2A specification, not here). ' +
            'Cached for five minutes; If-None-Match answers 304.',
          ok: {
            '200': { description: 'The agent card.', content: json({ type: 'object' }) },
            '304': { description: 'Not modified.' },
          },
          scopes: [],
          statuses: [429, 500],
        }),
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
      MetricsBearer: { type: 'http', scheme: 'bearer', description: "The owner's METRICS_TOKEN." },
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
          minLength: BOUNDS.idempotencyKeyMinLength,
          maxLength: BOUNDS.idempotencyKeyMaxLength,
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
  webhooks: WEBHOOK_EVENTS,
};

/**
 * The document as served: `servers` names this service's public base URL (PUBLIC_BASE_URL),
 * and the description states every limit with the numbers this server enforces.
 */
export function openApiDocument(config: RunningConfig, quotas: Quotas) {
  const limits = limitSentences(config, quotas);
  const stated = [limits.daily, limits.shares, limits.openings, limits.requests, limits.polling].join(' ');
  const { openapi, info, ...rest } = OPENAPI_DOCUMENT;
  return {
    openapi,
    info: { ...info, description: `${info.description} Limits: ${stated}` },
    servers: [{ url: config.publicBaseUrl, description: 'This service' }],
    ...rest,
  };
}
