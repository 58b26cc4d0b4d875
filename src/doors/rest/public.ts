// Public, read-only endpoints: health, contact-info, the OpenAPI document and the directory.

import { describeContact } from '../../guide/contact.ts';
import { conditionalReply } from '../../http/conditional.ts';
import type { Reply } from '../../http/context.ts';
import type { Handler, RequestContext } from '../context.ts';
import { openApiDocument } from '../../openapi/document.ts';
import { refuse } from '../../refusals/refusal.ts';
import { SERVICE_VERSION } from '../../base/version.ts';
import { parseDirectoryQuery, type Kind, type Query } from '../../rules/validate.ts';

/** GET /api/v1/health: answers only after a real query. */
export function health({ app }: RequestContext): Reply {
  return {
    status: 200,
    body: {
      status: 'ok',
      database: 'ok',
      version: SERVICE_VERSION,
      listings: app.store.listings.count(),
      time: new Date(app.now()).toISOString(),
    },
  };
}

/** GET /api/v1/contact-info: how to reach the owner, every limit, the privacy statement. */
export function contactInfo({ app }: RequestContext): Reply {
  return { status: 200, body: describeContact(app) };
}

/** GET /api/v1/directory, /communities, /tools: one handler per kind filter. */
export function listDirectory(kind: Kind | null) {
  return (ctx: RequestContext & { query: Query }): Reply =>
    conditionalReply(ctx.req, ctx.app.directory.list(parseDirectoryQuery(ctx.query, kind)));
}

/** GET /api/v1/directory/{slug} */
export function getListing(ctx: RequestContext): Reply {
  const answer = ctx.app.directory.get(ctx.params.slug as string);
  if (answer === undefined) throw refuse('no_listing');
  return conditionalReply(ctx.req, answer);
}

/** GET /api/v1/openapi.json */
export const openApi: Handler = ({ app }) => ({ status: 200, body: openApiDocument(app.config, app.quotas) });
