// The whole HTTP interface: method + path → the guards a request passes, outermost first,
// then its handler. HEAD is answered wherever GET is; OPTIONS preflights, 404 and 405 come
// from the router, and unknown paths take from the per-address request limit too.
//
//   limited          the per-address request limit (REQUEST_LIMIT_PER_MINUTE); /health is exempt
//   query            the query parsed strictly; a credential in it is refused
//   bearer           the conversation credential, for the conversation in the path
//   openingLimit     openings per address per hour (CREATE_LIMIT_PER_HOUR), judged after the key
//   pollInterval     one poll per poll_after_seconds per conversation, judged after `after`
//   trustedOrigin    a foreign Origin or Host is refused (DNS rebinding); the MCP tools have their own guards

import { bearer, limited, openingLimit, pollInterval, query } from './guards.ts';
import { getConversation, listMessages, openConversation, pollUpdates, postMessage } from './handlers/conversations.ts';
import { contactInfo, llmsTxt } from './handlers/guide.ts';
import { listingPage } from './handlers/listing-page.ts';
import { homePage, htmlPage } from './handlers/pages.ts';
import { getListing, health, listDirectory, openApi } from './handlers/public.ts';
import type { Handler } from './http.ts';
import { mcp, mcpPreflight, trustedOrigin } from './mcp/endpoint.ts';
import type { Route } from './router.ts';

const route = (method: string, pattern: string, handler: Handler): Route<Handler> => ({ method, pattern, handler });

export const routes: readonly Route<Handler>[] = [
  route('GET', '/api/v1/health', /*      */ query(health)),
  route('GET', '/api/v1/contact-info', limited(query(contactInfo))),
  route('GET', '/api/v1/openapi.json', limited(query(openApi))),
  route('GET', '/api/v1/directory', limited(query(listDirectory(null)))),
  route('GET', '/api/v1/communities', limited(query(listDirectory('community')))),
  route('GET', '/api/v1/tools', limited(query(listDirectory('tool')))),
  route('GET', '/api/v1/directory/:slug', limited(query(getListing))),
  route('POST', '/api/v1/conversations', limited(query(openingLimit(openConversation)))),
  route('GET', '/api/v1/conversations/:id', limited(query(bearer(getConversation)))),
  route('GET', '/api/v1/conversations/:id/messages', limited(query(bearer(listMessages)))),
  route('POST', '/api/v1/conversations/:id/messages', limited(query(bearer(postMessage)))),
  route('GET', '/api/v1/conversations/:id/updates', limited(query(bearer(pollInterval(pollUpdates))))),
  route('GET', '/', limited(query(htmlPage(homePage)))),
  route('GET', '/listings/:slug', limited(query(htmlPage(listingPage)))),
  route('GET', '/llms.txt', limited(query(llmsTxt))),
  route('POST', '/mcp', limited(query(trustedOrigin(mcp)))),
  route('OPTIONS', '/mcp', limited(mcpPreflight)),
];
