// Guards: what a request passes on its way to a handler, each a wrapper on its route-table
// line (routes.ts). The request rate is taken earlier, by the HTTP layer, before the path is
// decoded; the limits on writes are decided inside the rules (quotas.ts), where the write is.

import type { ClientContext, RequestContext } from '../doors/context.ts';
import type { Reply } from '../http/context.ts';
import { checkOrigin, type Door } from '../http/origins.ts';
import { parseQuery } from '../http/router.ts';
import { refuse, Refusal } from '../refusals/refusal.ts';
import { authenticate, bearerCredential } from '../rules/access.ts';
import type { Query } from '../rules/validate.ts';
import { verifyAgent } from '../runtime/verified-agents.ts';
import type { Conversation } from '../store/store.ts';

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

/**
 * The request's client: its address, and the agent a Web Bot Auth signature proves
 * (runtime/verified-agents.ts). A request without Signature-Input is unsigned and goes on at
 * once, nothing read, fetched or awaited. A bad signature is refused here, before anything else
 * of the request is judged: 400, 401, or 503 when its key directory cannot be fetched. A door
 * that answers refusals inside its own protocol (the MCP door, as tool errors) asks for them with
 * `handOn`: the handler then gets the refusal as `signatureRefusal`.
 */
export function signed<C extends RequestContext>(
  handler: (ctx: C & ClientContext) => Reply | Promise<Reply>,
  handOn = false,
): (ctx: C) => Reply | Promise<Reply> {
  return (ctx) => {
    const client = { address: ctx.clientAddress, agent: null, signature: null };
    if (ctx.req.headers['signature-input'] === undefined) return handler({ ...ctx, client });
    const refused = (err: unknown) => {
      if (!handOn || !(err instanceof Refusal)) throw err;
      return handler({ ...ctx, client, signatureRefusal: err });
    };
    let verdict: ReturnType<typeof verifyAgent>;
    try {
      verdict = verifyAgent(ctx.app, ctx.req, ctx.clientAddress);
    } catch (err) {
      return refused(err);
    }
    if (verdict === null) return handler({ ...ctx, client }); // a Signature-Input not for Web Bot Auth
    return verdict.then(
      ({ identity, signature }) => handler({ ...ctx, client: { ...client, agent: identity, signature } }),
      refused,
    );
  };
}

/**
 * A protocol door's guards (/mcp, /a2a), in the order both pass them: a foreign Origin or Host
 * (403, DNS rebinding), then a Web Bot Auth signature, then the query as `query` judges it.
 */
export function protocolDoor<C extends RequestContext>(
  door: Door,
  handler: (ctx: C & ClientContext & { query: Query }) => Reply | Promise<Reply>,
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
