// The whole HTTP interface, one line a route: method + path → its policy → the guards a
// request passes, outermost first, then its handler. HEAD is answered wherever GET is;
// OPTIONS preflights, 404 and 405 come from the router.
//
// Policies (what every answer of the path gets, refusals included; http/request-handler.ts applies them):
//   PUBLIC        no Cache-Control of its own (cached answers say `public, no-cache`); any origin may read it
//   PUBLIC_FREE   the same, and not counted by the per-address request limit (/health, for monitors)
//   PRIVATE       Cache-Control: no-store (conversation data, the one-time credential); any origin may read it
//   MCP           no-store (open_conversation answers with a credential); CORS only for allowed origins;
//                 refusals answered as JSON-RPC errors with the catalogue's reason, echoing the request's id
//   A2A_RPC       as MCP, for /a2a, as A2A JSON-RPC errors (A2A_HTTP: as HTTP+JSON ones, which have no id)
// A path no route has is PUBLIC, but under /a2a/ A2A_HTTP: the door answers its unknown paths itself.
// Every route but /health takes from the per-address request limit (REQUEST_LIMIT_PER_MINUTE)
// before anything about its path is decoded.
//
// Guards:
//   signed         a Web Bot Auth signature: the agent it proves, or 400/401/503 (none: unsigned, as before)
//   query          a credential in the query is refused (400), then the query is parsed strictly
//   bearer         the conversation credential, for the conversation in the path
//   protocolDoor   for /mcp and /a2a: a foreign Origin or Host is refused (DNS rebinding), then signed and
//                  query (the MCP door answers a signature's refusal as a tool error: `true`)
//   A2A            protocolDoor for the A2A door
// The limits on writes (openings per hour, the daily maximum and its shares) and the poll
// interval are decided inside the rules, after validation and idempotency (quotas.ts).

import { bearer, protocolDoor, query, signed } from './guards.ts';
import {
  closeConversation,
  getConversation,
  getUpdates,
  listMessages,
  openConversation,
  postMessage,
} from '../doors/rest/conversations.ts';
import { llmsTxt } from '../doors/web/llms-txt.ts';
import { listingPage } from '../doors/web/listing-page.ts';
import { deleteWebhook, getWebhook, putWebhook } from '../doors/rest/webhooks.ts';
import { homePage, htmlPage } from '../doors/web/pages.ts';
import { contactInfo, getListing, health, listDirectory, openApi } from '../doors/rest/public.ts';
import type { ClientContext, Handler } from '../doors/context.ts';
import type { Policy, Reply } from '../http/context.ts';
import { mcp, mcpPreflight, mcpRefusal } from '../doors/mcp/endpoint.ts';
import { metricsPage } from '../doors/rest/metrics.ts';
import { A2A_DOOR, MCP_DOOR } from '../http/origins.ts';
import { a2aHttp, a2aJsonRpc, httpRefusal, rpcRefusal, type A2aMethod } from '../doors/a2a/bindings.ts';
import { agentCardPage } from '../doors/a2a/card.ts';
import type { Route } from '../http/router.ts';
import type { Query } from '../rules/validate.ts';

const PUBLIC: Policy = { cache: 'public', cors: 'any', requestRate: true };
const PUBLIC_FREE: Policy = { cache: 'public', cors: 'any', requestRate: false };
const PRIVATE: Policy = { cache: 'private', cors: 'any', requestRate: true };
const DOOR = { cache: 'private', requestRate: true, jsonRpc: true } as const;
const MCP: Policy = { ...DOOR, cors: MCP_DOOR, refusalReply: mcpRefusal };
const A2A_RPC: Policy = { ...DOOR, cors: A2A_DOOR, refusalReply: rpcRefusal };
const A2A_HTTP: Policy = { cache: 'private', cors: A2A_DOOR, requestRate: true, refusalReply: httpRefusal };
// The A2A door's guards, for both bindings: the Origin and Host, then the URL, as /mcp.
type A2aHandler = (ctx: ClientContext & { query: Query }) => Promise<Reply>;
const A2A = (handler: A2aHandler) => protocolDoor(A2A_DOOR, handler);
// An HTTP+JSON route: A2A's guards, then the A2A method, with its params from the query or the body.
const a2aRoute = (method: A2aMethod, params: 'query' | 'body') => A2A(a2aHttp(method, params));

/** The policy of a path that no route below has (its answer is 404). */
export const unroutedPolicy = (path: string): Policy => (path.startsWith('/a2a/') ? A2A_HTTP : PUBLIC);

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
  route('POST',    '/api/v1/conversations',              PRIVATE,     signed(query(openConversation))),
  route('GET',     '/api/v1/conversations/:id',          PRIVATE,     signed(query(bearer(getConversation)))),
  route('GET',     '/api/v1/conversations/:id/messages', PRIVATE,     signed(query(bearer(listMessages)))),
  route('POST',    '/api/v1/conversations/:id/messages', PRIVATE,     signed(query(bearer(postMessage)))),
  route('GET',     '/api/v1/conversations/:id/updates',  PRIVATE,     signed(query(bearer(getUpdates)))),
  route('POST',    '/api/v1/conversations/:id/close',    PRIVATE,     signed(query(bearer(closeConversation)))),
  route('PUT',     '/api/v1/conversations/:id/webhook',  PRIVATE,     signed(query(bearer(putWebhook)))),
  route('GET',     '/api/v1/conversations/:id/webhook',  PRIVATE,     signed(query(bearer(getWebhook)))),
  route('DELETE',  '/api/v1/conversations/:id/webhook',  PRIVATE,     signed(query(bearer(deleteWebhook)))),
  route('GET',     '/',                                  PUBLIC,      query(htmlPage(homePage))),
  route('GET',     '/listings/:slug',                    PUBLIC,      query(htmlPage(listingPage))),
  route('GET',     '/llms.txt',                          PUBLIC,      query(llmsTxt)),
  route('GET',     '/metrics',                           PRIVATE,     query(metricsPage)),
  route('POST',    '/mcp',                               MCP,         protocolDoor(MCP_DOOR, mcp, true)),
  route('OPTIONS', '/mcp',                               MCP,         mcpPreflight),
  route('GET',     '/.well-known/agent-card.json',       PUBLIC,      query(agentCardPage)),
  route('POST',    '/a2a',                               A2A_RPC,     A2A(a2aJsonRpc)),
  route('POST',    '/a2a/message:send',                  A2A_HTTP,    a2aRoute('SendMessage', 'body')),
  route('POST',    '/a2a/message:stream',                A2A_HTTP,    a2aRoute('SendStreamingMessage', 'body')),
  route('GET',     '/a2a/tasks/:id:subscribe',           A2A_HTTP,    a2aRoute('SubscribeToTask', 'query')),
  route('POST',    '/a2a/tasks/:id:subscribe',           A2A_HTTP,    a2aRoute('SubscribeToTask', 'body')),
  route('POST',    '/a2a/tasks/:id:cancel',              A2A_HTTP,    a2aRoute('CancelTask', 'body')),
  route('GET',     '/a2a/tasks/:id',                     A2A_HTTP,    a2aRoute('GetTask', 'query')),
  route('GET',     '/a2a/tasks',                         A2A_HTTP,    a2aRoute('ListTasks', 'query')),
  route('POST',    '/a2a/tasks/:taskId/pushNotificationConfigs',     A2A_HTTP,
            a2aRoute('CreateTaskPushNotificationConfig', 'body')),
  route('GET',     '/a2a/tasks/:taskId/pushNotificationConfigs',     A2A_HTTP,
            a2aRoute('ListTaskPushNotificationConfigs', 'query')),
  route('GET',     '/a2a/tasks/:taskId/pushNotificationConfigs/:id', A2A_HTTP,
            a2aRoute('GetTaskPushNotificationConfig', 'query')),
  route('DELETE',  '/a2a/tasks/:taskId/pushNotificationConfigs/:id', A2A_HTTP,
            a2aRoute('DeleteTaskPushNotificationConfig', 'query')),
  route('GET',     '/a2a/extendedAgentCard',             A2A_HTTP,    a2aRoute('GetExtendedAgentCard', 'query')),
];
