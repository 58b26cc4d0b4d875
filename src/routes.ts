// The whole HTTP interface, one line a route: method + path → its policy → the guards a
// request passes, outermost first, then its handler. HEAD is answered wherever GET is;
// OPTIONS preflights, 404 and 405 come from the router.
//
// Policies (what every answer of the path gets, refusals included; http.ts applies them):
//   PUBLIC        no Cache-Control of its own (cached answers say `public, no-cache`); any origin may read it
//   PUBLIC_FREE   the same, and not counted by the per-address request limit (/health, for monitors)
//   PRIVATE       Cache-Control: no-store (conversation data, the one-time credential); any origin may read it
//   MCP           no-store (open_conversation answers with a credential); CORS only for allowed origins
// Every route but /health takes from the per-address request limit (REQUEST_LIMIT_PER_MINUTE)
// before anything about its path is decoded.
//
// Guards:
//   query          a credential in the query is refused (400), then the query is parsed strictly
//   bearer         the conversation credential, for the conversation in the path
//   trustedOrigin  a foreign Origin or Host is refused (DNS rebinding)
// The limits on writes (openings per hour, the daily maximum and its shares) and the poll
// interval are decided inside the rules, after validation and idempotency (quotas.ts).

import { bearer, query, trustedOrigin } from './guards.ts';
import { getConversation, getUpdates, listMessages, openConversation, postMessage } from './handlers/conversations.ts';
import { contactInfo } from './handlers/guide.ts';
import { llmsTxt } from './handlers/llms-txt.ts';
import { listingPage } from './handlers/listing-page.ts';
import { deleteWebhook, getWebhook, putWebhook } from './handlers/webhooks.ts';
import { homePage, htmlPage } from './handlers/pages.ts';
import { getListing, health, listDirectory, openApi } from './handlers/public.ts';
import type { Handler, Policy } from './http.ts';
import { mcp, mcpPreflight } from './mcp/endpoint.ts';
import { metricsPage } from './metrics.ts';
import { MCP_DOOR } from './origins.ts';
import type { Route } from './router.ts';

const PUBLIC: Policy = { cache: 'public', cors: 'any', requestLimit: true };
const PUBLIC_FREE: Policy = { cache: 'public', cors: 'any', requestLimit: false };
const PRIVATE: Policy = { cache: 'private', cors: 'any', requestLimit: true };
const MCP: Policy = { cache: 'private', cors: MCP_DOOR, requestLimit: true };

const route = (method: string, pattern: string, policy: Policy, handler: Handler): Route<Handler, Policy> => ({
  method,
  pattern,
  policy,
  handler,
});

// prettier-ignore
export const routes: readonly Route<Handler, Policy>[] = [
  route('GET',     '/api/v1/health',                     PUBLIC_FREE, query(health)),
  route('GET',     '/api/v1/contact-info',               PUBLIC,      query(contactInfo)),
  route('GET',     '/api/v1/openapi.json',               PUBLIC,      query(openApi)),
  route('GET',     '/api/v1/directory',                  PUBLIC,      query(listDirectory(null))),
  route('GET',     '/api/v1/communities',                PUBLIC,      query(listDirectory('community'))),
  route('GET',     '/api/v1/tools',                      PUBLIC,      query(listDirectory('tool'))),
  route('GET',     '/api/v1/directory/:slug',            PUBLIC,      query(getListing)),
  route('POST',    '/api/v1/conversations',              PRIVATE,     query(openConversation)),
  route('GET',     '/api/v1/conversations/:id',          PRIVATE,     query(bearer(getConversation))),
  route('GET',     '/api/v1/conversations/:id/messages', PRIVATE,     query(bearer(listMessages))),
  route('POST',    '/api/v1/conversations/:id/messages', PRIVATE,     query(bearer(postMessage))),
  route('GET',     '/api/v1/conversations/:id/updates',  PRIVATE,     query(bearer(getUpdates))),
  route('PUT',     '/api/v1/conversations/:id/webhook',  PRIVATE,     query(bearer(putWebhook))),
  route('GET',     '/api/v1/conversations/:id/webhook',  PRIVATE,     query(bearer(getWebhook))),
  route('DELETE',  '/api/v1/conversations/:id/webhook',  PRIVATE,     query(bearer(deleteWebhook))),
  route('GET',     '/',                                  PUBLIC,      query(htmlPage(homePage))),
  route('GET',     '/listings/:slug',                    PUBLIC,      query(htmlPage(listingPage))),
  route('GET',     '/llms.txt',                          PUBLIC,      query(llmsTxt)),
  route('GET',     '/metrics',                           PRIVATE,     query(metricsPage)),
  route('POST',    '/mcp',                               MCP,         query(trustedOrigin(MCP_DOOR, mcp))),
  route('OPTIONS', '/mcp',                               MCP,         mcpPreflight),
];
