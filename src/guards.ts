// Guards: what a request passes on its way to a handler, each a wrapper on its route-table
// line. The per-address limits and the credential act before the handler. The opening
// limit and the poll interval are judged before it too, but the contract orders limits
// after validation and idempotency, so they hand their refusal to the rule, which throws
// it at that place; only a request the rule accepts is counted.

import type { App } from './app.ts';
import { authenticate } from './conversations.ts';
import type { RestContext } from './http.ts';
import { refuse, type Refusal } from './refusals.ts';
import type { Conversation } from './store.ts';
import { parseQuery, type Query } from './validate.ts';

interface Caller {
  readonly app: App;
  readonly clientAddress: string;
}

// A credential must never travel in a URL: a parameter of that name, or any value that
// looks like one (64 hex characters, alone or after "Bearer").
const CREDENTIAL_NAME = 'access_token';
const CREDENTIAL_VALUE = /^(bearer\s+)?[0-9a-f]{64}$/i;

/** The per-address request limit: a token bucket of REQUEST_LIMIT_PER_MINUTE. */
export function limited<C extends Caller, R>(handler: (ctx: C) => R): (ctx: C) => R {
  return (ctx) => {
    const wait = ctx.app.limits.requests.take(ctx.clientAddress, ctx.app.now());
    if (wait > 0) throw refuse('tooManyRequests', wait);
    return handler(ctx);
  };
}

/** Parses the query strictly (a repeated or badly encoded parameter is refused) and refuses a credential in it. */
export function query<C extends RestContext, R>(handler: (ctx: C & { query: Query }) => R): (ctx: C) => R {
  return (ctx) => {
    const parsed = parseQuery(ctx.rawQuery);
    for (const [name, value] of parsed) {
      if (name.toLowerCase() === CREDENTIAL_NAME || CREDENTIAL_VALUE.test(value)) throw refuse('credentialInUrl');
    }
    return handler({ ...ctx, query: parsed });
  };
}

/** The conversation credential, from exactly one `Authorization: Bearer` header, for the path's id. */
export function bearer<C extends RestContext, R>(
  handler: (ctx: C & { conversation: Conversation }) => R,
): (ctx: C) => R {
  return (ctx) => {
    const conversation = authenticate(
      ctx.app.store,
      bearerCredential(ctx.req.rawHeaders),
      ctx.params.id,
      ctx.app.now(),
    );
    return handler({ ...ctx, conversation });
  };
}

/** The credential of the one Authorization header; none when there are several (Node keeps only the first). */
function bearerCredential(rawHeaders: readonly string[]): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] as string);
  }
  return values.length === 1 ? /^bearer +(\S+)$/i.exec(values[0] as string)?.[1] : undefined; // the scheme is case-insensitive
}

/** The per-address opening limit (CREATE_LIMIT_PER_HOUR): an accepted opening counts. */
export function openingLimit<C extends Caller, R>(
  handler: (ctx: C & { overLimit: Refusal | null }) => Promise<R>,
): (ctx: C) => Promise<R> {
  return async (ctx) => {
    const { app, clientAddress } = ctx;
    const wait = app.limits.openings.wait(clientAddress, app.now());
    const overLimit = wait > 0 ? refuse('tooManyOpenings', app.config.createLimitPerHour, wait) : null;
    const result = await handler({ ...ctx, overLimit });
    app.limits.openings.record(clientAddress, app.now());
    return result;
  };
}

/** The poll interval of one conversation, whichever door polls it: an accepted poll restarts it. */
export function pollInterval<C extends Caller & { conversation: Conversation }, R>(
  handler: (ctx: C & { tooSoon: Refusal | null }) => R,
): (ctx: C) => R {
  return (ctx) => {
    const { app, conversation } = ctx;
    const wait = app.limits.polls.wait(conversation.id, app.now());
    const tooSoon = wait > 0 ? refuse('pollTooSoon', app.config.pollIntervalSeconds, wait) : null;
    const result = handler({ ...ctx, tooSoon });
    app.limits.polls.record(conversation.id, app.now());
    return result;
  };
}
