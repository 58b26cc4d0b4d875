// POST /mcp: the MCP door, JSON-RPC 2.0 over Streamable HTTP. Every request gets one JSON
// answer: no sessions, no server-sent events. Two protocol revisions are served, chosen by
// what the client sends (README "The MCP door" has the decisions):
// - 2025-11-25 (and 2025-06-18, 2025-03-26): the `initialize` handshake, `ping`, `tools/list`, `tools/call`;
// - 2026-07-28, stateless: each request names its version in `params._meta` and in the
//   MCP-Protocol-Version header, with Mcp-Method (and Mcp-Name for tools/call) mirroring the
//   body; `server/discover`, `tools/list`, `tools/call`; every result says resultType.
// The tools are in tools.ts, where every refusal becomes a tool result.

import type { IncomingMessage } from 'node:http';
import type { Reply, RestContext } from '../http.ts';
import { corsForAllowedOrigin, MCP_DOOR } from '../origins.ts';
import { Refusal } from '../refusals.ts';
import { SERVICE_VERSION } from '../version.ts';
import { instructions, TOOL_NAMES } from './tool-list.ts';
import { callTool, toolsOf } from './tools.ts';

export const MCP_BODY_BYTES = 128 * 1024; // a tools/call with the largest valid message, every character escaped as \uXXXX
const MODERN = '2026-07-28';
const HANDSHAKE_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const SUPPORTED_VERSIONS = [MODERN, ...HANDSHAKE_VERSIONS];
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = { name: 'agent-contact-service', title: 'Agent contact service', version: SERVICE_VERSION };
const CAPABILITIES = { tools: { listChanged: false } };
const CACHEABLE = { ttlMs: 3_600_000, cacheScope: 'public' }; // the tool list changes only with a release
const MCP_HEADERS = 'Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name';

/** A JSON-RPC error, with the HTTP status the transport gives it. */
class RpcError {
  readonly error: { code: number; message: string; data?: unknown };
  readonly status: number;
  constructor(code: number, message: string, status = 200, data?: unknown) {
    this.error = { code, message, ...(data !== undefined && { data }) };
    this.status = status;
  }
}
const invalid = (message: string) => new RpcError(-32600, `Invalid request: ${message}.`, 400);
const mismatch = (header: string, sent: string | undefined, body: unknown) =>
  new RpcError(
    -32020,
    `Header mismatch: ${header} is ${sent === undefined ? 'missing' : JSON.stringify(sent.slice(0, 100))}, and the body says ${JSON.stringify(body)}.`,
    400,
  );
const unsupported = (requested: string) =>
  new RpcError(
    -32022,
    `Unsupported protocol version ${JSON.stringify(requested.slice(0, 40))}; this server speaks ${SUPPORTED_VERSIONS.join(', ')}.`,
    400,
    { supported: SUPPORTED_VERSIONS, requested },
  );

type Id = string | number;
interface Request {
  readonly id: Id;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** POST /mcp */
export async function mcp(ctx: RestContext): Promise<Reply> {
  let id: Id | null = null;
  try {
    const message = await readMessage(ctx);
    if (message === null) return { status: 202, body: '' }; // a notification or a response: nothing to answer
    id = message.id;
    const modern = isModern(ctx.req, message);
    const result = await dispatch(ctx, message, modern);
    const complete = modern
      ? { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } }
      : result;
    return answer(200, { jsonrpc: '2.0', id, result: complete });
  } catch (err) {
    if (!(err instanceof RpcError)) throw err; // HTTP-level refusals (413, 415) keep the REST error body
    return answer(err.status, { jsonrpc: '2.0', id, error: err.error });
  }
}

/** The request in the body, or null for a notification or a response; -32700 and -32600 otherwise. */
async function readMessage(ctx: RestContext): Promise<Request | null> {
  let body: unknown;
  try {
    body = await ctx.readJson(MCP_BODY_BYTES);
  } catch (err) {
    if (err instanceof Refusal && (err.reason === 'notJson' || err.reason === 'notUtf8'))
      throw new RpcError(-32700, `Parse error: ${err.message}`, 400);
    throw err;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('send one JSON-RPC 2.0 message as a JSON object; batches are not accepted');
  const message = body as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') throw invalid('"jsonrpc" must be "2.0"');
  if (!('method' in message) && ('result' in message || 'error' in message)) return null;
  if (typeof message.method !== 'string') throw invalid('"method" must be a string');
  const params = message.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw invalid('"params" must be an object');
  if (!('id' in message)) return null;
  if (typeof message.id !== 'string' && !Number.isSafeInteger(message.id))
    throw invalid('"id" must be a string or an integer');
  return { id: message.id as Id, method: message.method, params: params as Record<string, unknown> };
}

/** Whether the request is of the stateless 2026-07-28 revision, after checking the headers that say so. */
function isModern(req: IncomingMessage, request: Request): boolean {
  const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
  const sentVersion = header('mcp-protocol-version');
  if (request.method === 'initialize') return false; // the handshake itself; answered with a version it serves
  const meta = request.params._meta as Record<string, unknown> | undefined;
  const version = typeof meta === 'object' && meta !== null ? meta[VERSION_KEY] : undefined;
  if (version === undefined) {
    if (sentVersion === undefined || HANDSHAKE_VERSIONS.includes(sentVersion)) return false; // none: 2025-03-26
    if (sentVersion === MODERN)
      throw new RpcError(
        -32602,
        `Invalid params: MCP-Protocol-Version is ${MODERN}, but params._meta has no "${VERSION_KEY}".`,
        400,
      );
    throw unsupported(sentVersion);
  }
  if (version !== MODERN) throw unsupported(String(version));
  if (sentVersion !== version) throw mismatch('MCP-Protocol-Version', sentVersion, version);
  if (header('mcp-method') !== request.method) throw mismatch('Mcp-Method', header('mcp-method'), request.method);
  if (request.method === 'tools/call' && decoded(header('mcp-name')) !== request.params.name)
    throw mismatch('Mcp-Name', header('mcp-name'), request.params.name);
  return true;
}

/** A header value that may be Base64 in the =?base64?…?= form. */
function decoded(value: string | undefined): string | undefined {
  const sentinel = value === undefined ? null : /^=\?base64\?(.*)\?=$/.exec(value);
  return sentinel ? Buffer.from(sentinel[1] as string, 'base64').toString('utf8') : value;
}

async function dispatch(ctx: RestContext, request: Request, modern: boolean): Promise<Record<string, unknown>> {
  const method = request.method;
  if (method === 'initialize') {
    const asked = request.params.protocolVersion;
    const protocolVersion =
      typeof asked === 'string' && HANDSHAKE_VERSIONS.includes(asked) ? asked : HANDSHAKE_VERSIONS[0];
    return { protocolVersion, capabilities: CAPABILITIES, serverInfo: SERVER_INFO, instructions: instructions(ctx.app.config) };
  }
  if (method === 'ping' && !modern) return {};
  if (method === 'server/discover' && modern)
    return {
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: CAPABILITIES,
      instructions: instructions(ctx.app.config),
      ...CACHEABLE,
    };
  if (method === 'tools/list') return { tools: toolsOf(ctx.app), ...(modern ? CACHEABLE : {}) };
  if (method === 'tools/call') {
    const result = await callTool(ctx, request.params.name, request.params.arguments);
    if (result === undefined) {
      const name = JSON.stringify(String(request.params.name).slice(0, 60));
      throw new RpcError(-32602, `Unknown tool ${name}; tools/list names the ${TOOL_NAMES.length} tools.`);
    }
    const refused = result.refusal && { tool_refusal: result.refusal.status, refusal: result.refusal.reason };
    ctx.note({ tool: String(request.params.name), ...refused });
    const { refusal: _refusal, ...toolResult } = result;
    return toolResult;
  }
  // The 2026-07-28 revision answers an unknown method with 404; the handshake's revisions in band.
  throw new RpcError(-32601, `Method not found: ${JSON.stringify(method.slice(0, 60))}.`, modern ? 404 : 200);
}

const answer = (status: number, body: object): Reply => ({ status, body });

/** OPTIONS /mcp: 204 like every path; the CORS preflight headers only for an allowed origin. */
export function mcpPreflight(ctx: RestContext): Reply {
  const headers: Record<string, string> = { allow: 'POST, OPTIONS' };
  if (corsForAllowedOrigin(ctx.app.config, MCP_DOOR, ctx.req)['access-control-allow-origin']) {
    Object.assign(headers, {
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': MCP_HEADERS,
      'access-control-max-age': '86400',
    });
  }
  return { status: 204, body: '', headers };
}
