// The whole API: method + path pattern → handler. Guards wrap handlers on the line
// itself, so this table shows what reaches the database past which checks.
// HEAD is answered wherever GET is; OPTIONS preflights and 404/405 come from the router.

import {
  authenticated,
  createConversation,
  getConversation,
  listMessages,
  pollUpdates,
  postMessage,
} from './handlers/conversations.ts';
import { homePage, htmlPage, listingPage, llmsTxt } from './handlers/pages.ts';
import { contactInfo, getListing, health, listDirectory, openApi } from './handlers/public.ts';
import type { Handler } from './http.ts';
import type { Route } from './router.ts';

export const routes: readonly Route<Handler>[] = [
  { method: 'GET', pattern: '/api/v1/health', handler: health },
  { method: 'GET', pattern: '/api/v1/contact-info', handler: contactInfo },
  { method: 'GET', pattern: '/api/v1/openapi.json', handler: openApi },
  { method: 'GET', pattern: '/api/v1/directory', handler: listDirectory(null) },
  { method: 'GET', pattern: '/api/v1/communities', handler: listDirectory('community') },
  { method: 'GET', pattern: '/api/v1/tools', handler: listDirectory('tool') },
  { method: 'GET', pattern: '/api/v1/directory/:slug', handler: getListing },
  { method: 'POST', pattern: '/api/v1/conversations', handler: createConversation },
  { method: 'GET', pattern: '/api/v1/conversations/:id', handler: authenticated(getConversation) },
  { method: 'GET', pattern: '/api/v1/conversations/:id/messages', handler: authenticated(listMessages) },
  { method: 'POST', pattern: '/api/v1/conversations/:id/messages', handler: authenticated(postMessage) },
  { method: 'GET', pattern: '/api/v1/conversations/:id/updates', handler: authenticated(pollUpdates) },
  { method: 'GET', pattern: '/', handler: htmlPage(homePage) },
  { method: 'GET', pattern: '/listings/:slug', handler: htmlPage(listingPage) },
  { method: 'GET', pattern: '/llms.txt', handler: llmsTxt },
];
