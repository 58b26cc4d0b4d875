// The A2A door's two bindings over HTTP, as its route lines in routes.ts wire them: JSON-RPC
// at POST /a2a, and HTTP+JSON under /a2a (/message:send, /tasks/{id}, …). Both check, in
// order, the A2A-Version and a credential that is present (before the body is read), then
// the body, then run the same operation (operations.ts). Refusals are answered as A2A says.

import { bearerCredential, conversationOfCredential } from '../../rules/access.ts';
import type { Reply } from '../../http/context.ts';
import type { ClientContext } from '../context.ts';
import { readRpcRequest, rpcResult, type RpcId } from '../jsonrpc.ts';
import type { Refusal } from '../../refusals/refusal.ts';
import type { Conversation } from '../../store/store.ts';
import type { Query } from '../../rules/validate.ts';
import { A2aError, a2aRefusal, a2aErrorOf, httpErrorReply, rpcErrorReply } from './errors.ts';
import * as operations from './operations.ts';
import type { A2aCall } from './operations.ts';

/** A2A's body limit, as /mcp's: a message of 8000 characters with every one escaped fits. */
export const A2A_BODY_BYTES = 128 * 1024;
const MEDIA_TYPES = ['application/json', 'application/a2a+json'];
const A2A_TYPE = 'application/a2a+json';

export type A2aOperation = (call: A2aCall) => unknown;
type A2aContext = ClientContext & { query: Query };

/** A2A's methods, by the names both bindings log; on JSON-RPC any other is -32601. */
const METHODS = {
  SendMessage: operations.sendMessage,
  SendStreamingMessage: operations.unsupportedStream,
  GetTask: operations.getTask,
  ListTasks: operations.listTasks,
  CancelTask: operations.cancelTask,
  SubscribeToTask: operations.unsupportedStream,
  CreateTaskPushNotificationConfig: operations.createPushConfig,
  GetTaskPushNotificationConfig: operations.getPushConfig,
  ListTaskPushNotificationConfigs: operations.listPushConfigs,
  DeleteTaskPushNotificationConfig: operations.deletePushConfig,
  GetExtendedAgentCard: operations.unsupportedExtendedCard,
} satisfies Record<string, A2aOperation>;
export type A2aMethod = keyof typeof METHODS;

/** A2A-Version, header or query: 1.0 (a patch number is ignored); none means 0.3, which is not served. */
function checkVersion(ctx: A2aContext): void {
  const header = ctx.req.headers['a2a-version'];
  const sent = (typeof header === 'string' ? header : undefined) ?? ctx.query.get('A2A-Version') ?? '';
  if (/^1\.0(\.\d+)?$/.test(sent.trim())) return;
  const said =
    sent.trim() === '' ? 'no A2A-Version (which means 0.3)' : `A2A-Version ${JSON.stringify(sent.slice(0, 20))}`;
  throw a2aRefusal('protocol_version',
    `This agent speaks A2A 1.0; the request sent ${said}. Send A2A-Version: 1.0.`,
  );
}

/** The conversation of a credential that was sent; null when none was. A bad one never opens a conversation. */
function presentCredential(ctx: A2aContext): Conversation | null {
  if (ctx.req.headers.authorization === undefined) return null;
  return conversationOfCredential(ctx.app.credentials, bearerCredential(ctx.req.rawHeaders), ctx.app.now());
}

/** POST /a2a: one JSON-RPC request per body. */
export async function a2aJsonRpc(ctx: A2aContext): Promise<Reply> {
  let id: RpcId | null = null;
  try {
    checkVersion(ctx);
    const holder = presentCredential(ctx);
    const request = await readRpcRequest(ctx, A2A_BODY_BYTES, MEDIA_TYPES);
    if (request === null) return { status: 202, body: '' }; // a notification: nothing is done
    id = request.id;
    const operation: A2aOperation | undefined = Object.hasOwn(METHODS, request.method)
      ? METHODS[request.method as A2aMethod]
      : undefined;
    if (operation === undefined)
      throw a2aRefusal('no_method',
        `Method not found: ${request.method.slice(0, 60)}. A2A 1.0 names methods like SendMessage and GetTask.`,
      );
    ctx.note({ a2a_method: request.method });
    const result = await operation({ ctx, holder, params: request.params });
    return { status: 200, body: rpcResult(id, result) };
  } catch (err) {
    // Refused before the body was read (the version, the credential): the body still says the id.
    const answerId = id ?? (await ctx.rpcId());
    return refused(ctx, err, (error) => rpcErrorReply(answerId, error));
  }
}

/** An HTTP+JSON route: its operation, with the path's ids and the query or the body as params. */
export function a2aHttp(method: A2aMethod, source: 'query' | 'body', rename: Record<string, string> = {}) {
  const operation: A2aOperation = METHODS[method];
  return async (ctx: A2aContext): Promise<Reply> => {
    try {
      checkVersion(ctx);
      const holder = presentCredential(ctx);
      const body = source === 'body' ? await ctx.readJson(A2A_BODY_BYTES, { mediaTypes: MEDIA_TYPES, empty: {} }) : {};
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw a2aRefusal('invalid_params', 'The body must be a JSON object.');
      }
      const fromPath = Object.fromEntries(
        Object.entries(ctx.params).map(([name, value]) => [rename[name] ?? name, value]),
      );
      const params = { ...(source === 'query' ? Object.fromEntries(ctx.query) : body), ...fromPath };
      ctx.note({ a2a_method: method });
      const result = await operation({ ctx, holder, params });
      return { status: 200, body: result as object, contentType: A2A_TYPE };
    } catch (err) {
      return refused(ctx, err, httpErrorReply);
    }
  };
}

function refused(ctx: ClientContext, err: unknown, reply: (error: A2aError) => Reply): Reply {
  const error = a2aErrorOf(err, ctx.refusalOf);
  ctx.note({ a2a_error: error.kind });
  return reply(error);
}

/** The route policies' refusal answers: for what is refused before a binding runs (Origin, the URL, limits). */
export const rpcRefusal = (refusal: Refusal, id: RpcId | null): Reply =>
  rpcErrorReply(id, a2aErrorOf(refusal, asRefusalOnly));
export const httpRefusal = (refusal: Refusal): Reply => httpErrorReply(a2aErrorOf(refusal, asRefusalOnly));

/** For a value that is a refusal already: nothing is left to log. */
const asRefusalOnly = (refusal: unknown) => refusal as Refusal;
