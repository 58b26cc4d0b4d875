// JSON-RPC 2.0 framing, shared by the two protocol doors (/mcp and /a2a): one request per
// body, read under the door's size limit; a notification or a response is acknowledged
// without an answer; every refusal is a JSON-RPC error with the HTTP status the door gives
// it, and the catalogue's reason in `error.data.reason`. Values a client sent are echoed only
// through `shown`, which never recurses into them.

import type { RequestContext } from './context.ts';
import { refuse, Refusal } from '../refusals/refusal.ts';

export type { RpcId } from '../http/context.ts';
import type { RpcId } from '../http/context.ts';

/** A request: its id, method and params (an object; absent params are `{}`). */
export interface RpcRequest {
  readonly id: RpcId;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** A JSON-RPC error: a refusal of the catalogue, its JSON-RPC code, and the HTTP status the transport gives it. */
export class RpcError {
  readonly error: { code: number; message: string; data: Record<string, unknown> };
  readonly refusal: Refusal;
  readonly status: number;
  constructor(code: number, refusal: Refusal, status = 200, data: Record<string, unknown> = {}, message?: string) {
    this.error = { code, message: message ?? refusal.message, data: { reason: refusal.reason, ...data } };
    this.refusal = refusal;
    this.status = status;
  }
}

export const invalidRequest = (message: string) =>
  new RpcError(-32600, refuse('invalid_request', `Invalid request: ${message}.`), 400);

/**
 * A refusal of the catalogue as a JSON-RPC error body: a body that is no JSON is -32700; a refusal
 * JSON-RPC has no code for (a limit, a credential, a size) takes its HTTP status as its code, as the
 * A2A door does; Retry-After is repeated as retry_after_seconds.
 */
export function refusalAsRpcError(refusal: Refusal): RpcError['error'] {
  const code = refusal.reason === 'not_json' || refusal.reason === 'not_utf8' ? -32700 : refusal.status;
  const retry = refusal.headers['retry-after'];
  const data = { reason: refusal.reason, ...(retry && { retry_after_seconds: Number(retry) }) };
  return { code, message: refusal.message, data };
}

/**
 * A value a client sent, as it may appear in an error message: a string quoted and cut to
 * `max` characters, anything else by its kind. Never String() or JSON.stringify() of the
 * value itself: a 40,000-deep array would overflow the stack.
 */
export function shown(value: unknown, max = 60): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, max));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return value === undefined ? 'nothing' : `a ${typeof value}`;
}

/** The request in the body, or null for a notification or a response; -32700 and -32600 otherwise. */
export async function readRpcRequest(
  ctx: RequestContext,
  maxBytes: number,
  mediaTypes: readonly string[] = ['application/json'],
): Promise<RpcRequest | null> {
  let body: unknown;
  try {
    body = await ctx.readJson(maxBytes, { mediaTypes });
  } catch (err) {
    if (err instanceof Refusal && (err.reason === 'not_json' || err.reason === 'not_utf8')) {
      throw new RpcError(-32700, err, 400, {}, `Parse error: ${err.message}`);
    }
    throw err;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('send one JSON-RPC 2.0 message as a JSON object; batches are not accepted');
  }
  const message = body as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') throw invalidRequest('"jsonrpc" must be "2.0"');
  if (!('method' in message) && ('result' in message || 'error' in message)) return null;
  if (typeof message.method !== 'string') throw invalidRequest('"method" must be a string');
  const params = message.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw invalidRequest('"params" must be an object');
  }
  if (!('id' in message)) return null;
  if (typeof message.id !== 'string' && !Number.isSafeInteger(message.id)) {
    throw invalidRequest('"id" must be a string or an integer');
  }
  return { id: message.id as RpcId, method: message.method, params: params as Record<string, unknown> };
}

/** A JSON-RPC answer: a result, or an error. */
export function rpcResult(id: RpcId | null, result: unknown) {
  return { jsonrpc: '2.0', id, result };
}
export function rpcError(id: RpcId | null, error: RpcError['error']) {
  return { jsonrpc: '2.0', id, error };
}
