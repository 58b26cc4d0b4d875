// Guards: what a request passes on its way to a handler, each a wrapper on its route-table
// line. The request limit is taken earlier, by the HTTP layer, before the path is decoded;
// the limits on writes are decided inside the rules (quotas.ts), where the write is.

import { authenticate } from '../rules/access.ts';
import type { Reply, RequestContext } from './context.ts';
import { checkOrigin, type Door } from './origins.ts';
import { refuse, Refusal } from '../refusals/refusal.ts';
import { verifyAgent } from '../runtime/verified-agents.ts';
import type { Conversation } from '../store/store.ts';
import { parseQuery, type Query } from '../rules/validate.ts';

// A credential must never travel in a URL: a parameter named like one, or a run of 64 or
// more hex characters anywhere in the query (in a name or a value, encoded or not) that
// mixes digits and letters, as every credential does: one of only digits or only letters
// a-f is 1 in 10^13 of them, and refusing those would refuse `q=aaaa…` too.
const CREDENTIAL_NAME = /(?:^|&)access_token(?:[=&]|$)/i;
const HEX_RUN = /[0-9a-f]{64,}/gi;

/**
 * Refuses a credential in the query before anything else is judged of it (so that no later
 * error can repeat it), then parses the query strictly: a repeated or badly encoded
 * parameter is refused.
 */
export function query<C extends RequestContext, R>(handler: (ctx: C & { query: Query }) => R): (ctx: C) => R {
  return (ctx) => {
    if (holdsCredential(ctx.rawQuery)) throw refuse('credential_in_url');
    return handler({ ...ctx, query: parseQuery(ctx.rawQuery) });
  };
}

/** Whether a raw query string holds something that is, or looks like, a credential. */
export function holdsCredential(rawQuery: string): boolean {
  if (rawQuery === '') return false;
  if (!rawQuery.includes('%')) return CREDENTIAL_NAME.test(rawQuery) || hasCredentialLikeRun(rawQuery);
  let decoded = rawQuery;
  try {
    decoded = decodeURIComponent(rawQuery.replace(/\+/g, ' '));
  } catch {
    // malformed encoding: the raw text is judged, and parsing refuses it afterwards
  }
  return [rawQuery, decoded].some((text) => CREDENTIAL_NAME.test(text) || hasCredentialLikeRun(text));
}

function hasCredentialLikeRun(text: string): boolean {
  if (text.length < 64) return false;
  for (const [run] of text.matchAll(HEX_RUN)) {
    if (/[0-9]/.test(run) && /[a-f]/i.test(run)) return true;
  }
  return false;
}

/** The conversation credential, from exactly one `Authorization: Bearer` header, for the path's id. */
export function bearer<C extends RequestContext, R>(
  handler: (ctx: C & { conversation: Conversation }) => R,
): (ctx: C) => R {
  return (ctx) => {
    const token = bearerCredential(ctx.req.rawHeaders);
    const conversation = authenticate(ctx.app.credentials, token, ctx.params.id, ctx.app.now());
    return handler({ ...ctx, conversation });
  };
}

/** The credential of the one Authorization header; none when there are several (Node keeps only the first). */
export function bearerCredential(rawHeaders: readonly string[]): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] as string);
  }
  if (values.length !== 1) return undefined;
  return /^bearer +(\S+)$/i.exec(values[0] as string)?.[1]; // the scheme is case-insensitive
}

/**
 * The agent a Web Bot Auth signature proves, as the request's client (runtime/verified-agents.ts);
 * an unsigned request goes on at once, as before. A bad signature is refused here, before
 * anything else of the request is judged: 400, 401, or 503 when its key directory cannot be
 * fetched. A door that answers refusals inside its own protocol (the MCP door, as tool errors)
 * asks for them with `handOn`: the handler then gets the refusal as `signatureRefusal`.
 */
export function signed<C extends RequestContext>(
  handler: (ctx: C) => Reply | Promise<Reply>,
  handOn = false,
): (ctx: C) => Reply | Promise<Reply> {
  const refused = (ctx: C, err: unknown) => {
    if (!handOn || !(err instanceof Refusal)) throw err;
    return handler({ ...ctx, signatureRefusal: err });
  };
  return (ctx) => {
    let verdict: ReturnType<typeof verifyAgent>;
    try {
      verdict = verifyAgent(ctx.app, ctx.req, ctx.client.address);
    } catch (err) {
      return refused(ctx, err);
    }
    if (verdict === null) return handler(ctx); // unsigned: nothing awaited, nothing fetched
    return verdict.then(
      ({ identity, signature }) => handler({ ...ctx, client: { ...ctx.client, agent: identity, signature } }),
      (err: unknown) => refused(ctx, err),
    );
  };
}

/**
 * A protocol door's guards (/mcp, /a2a), in the order both pass them: a foreign Origin or Host
 * (403, DNS rebinding), then a Web Bot Auth signature, then the query as `query` judges it.
 */
export function protocolDoor<C extends RequestContext>(
  door: Door,
  handler: (ctx: C & { query: Query }) => Reply | Promise<Reply>,
  handOnSignatureRefusals = false,
): (ctx: C) => Reply | Promise<Reply> {
  return trustedOrigin(door, signed(query(handler), handOnSignatureRefusals));
}

/** A protocol door's guard against DNS rebinding: a foreign Origin or Host gets 403. */
function trustedOrigin<C extends RequestContext, R>(door: Door, handler: (ctx: C) => R): (ctx: C) => R {
  return (ctx) => {
    checkOrigin(ctx.app.config, door, ctx.req);
    return handler(ctx);
  };
}
