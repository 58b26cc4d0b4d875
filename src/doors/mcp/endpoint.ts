// POST /mcp: the MCP door, JSON-RPC 2.0 over Streamable HTTP. Every request gets one JSON
// answer: no sessions, no server-sent events. Two protocol revisions are served, chosen by
// what the client sends (README "The MCP door" has the decisions):
// - 2025-11-25 (and 2025-06-18, 2025-03-26): the `initialize` handshake, `ping`, `tools/list`, `tools/call`;
// - 2026-07-28, stateless: each request names its version in `params._meta` and in the
//   MCP-Protocol-Version header, with Mcp-Method (and Mcp-Name for tools/call) mirroring the
//   body; `server/discover`, `tools/list`, `tools/call`; every result says resultType.
// The tools are in tools.ts, where every refusal becomes a tool result.

import type { IncomingMessage } from 'node:http';
import type { Reply } from '../../http/context.ts';
import type { ClientContext, RequestContext } from '../context.ts';
import { doorPreflightHeaders, MCP_DOOR } from '../../http/origins.ts';
import {
  readRpcRequest,
  refusalAsRpcError,
  rpcError,
  RpcError,
  rpcResult,
  shown,
  type RpcId,
  type RpcRequest,
} from '../jsonrpc.ts';
import { refuse, type Refusal } from '../../refusals/refusal.ts';
import { SERVICE_VERSION } from '../../base/version.ts';
import { TOOL_NAMES } from '../../base/contract.ts';
import { instructions } from './tool-list.ts';
import { callTool, toolsOf } from './tools.ts';

// A tools/call with the largest valid message, every character escaped as \uXXXX, fits.
export const MCP_BODY_BYTES = 128 * 1024;
const MODERN = '2026-07-28';
const HANDSHAKE_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const SUPPORTED_VERSIONS = [MODERN, ...HANDSHAKE_VERSIONS];
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO = { name: 'agent-contact-service', title: 'Agent contact service', version: SERVICE_VERSION };
const CAPABILITIES = { tools: { listChanged: false } };
const CACHEABLE = { ttlMs: 3_600_000, cacheScope: 'public' }; // the tool list changes only with a release

const mismatch = (header: string, sent: string | undefined, body: unknown) =>
  new RpcError(
    -32020,
    refuse(
      'header_mismatch',
      `Header mismatch: ${header} is ${sent === undefined ? 'missing' : shown(sent, 100)}, ` +
        `and the body says ${shown(body)}.`,
    ),
    400,
  );
const unsupported = (requested: unknown) =>
  new RpcError(
    -32022,
    refuse(
      'protocol_version',
      `Unsupported protocol version ${shown(requested, 40)}; this server speaks ${SUPPORTED_VERSIONS.join(', ')}.`,
    ),
    400,
    { supported: SUPPORTED_VERSIONS, ...(typeof requested === 'string' && { requested: requested.slice(0, 40) }) },
  );
const invalidParams = (message: string) => new RpcError(-32602, refuse('invalid_params', message), 400);

/** POST /mcp */
export async function mcp(ctx: ClientContext): Promise<Reply> {
  let id: RpcId | null = null;
  try {
    const message = await readRpcRequest(ctx, MCP_BODY_BYTES);
    // A signature refused (guards.ts signed): a tool call hears it as its tool error, anything else at the HTTP level.
    if (ctx.signatureRefusal && message?.method !== 'tools/call') throw ctx.signatureRefusal;
    if (message === null) return { status: 202, body: '' }; // a notification or a response: nothing to answer
    id = message.id;
    const modern = isModern(ctx.req, message);
    const result = await dispatch(ctx, message, modern);
    const complete = modern
      ? { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } }
      : result;
    return { status: 200, body: rpcResult(id, complete) };
  } catch (err) {
    if (!(err instanceof RpcError)) throw err; // a refusal of the catalogue: answered by mcpRefusal, with the id
    return { status: err.status, body: rpcError(id, err.error) };
  }
}

/**
 * How /mcp answers a refusal made outside a JSON-RPC method (the request limit, Origin and Host, the
 * body's size and type, a signature on anything but a tool call): a JSON-RPC error with the refusal's
 * status, its reason in `error.data.reason`, and the request's id when its body says one.
 */
export function mcpRefusal(refusal: Refusal, id: RpcId | null): Reply {
  return { status: refusal.status, body: rpcError(id, refusalAsRpcError(refusal)), headers: refusal.headers };
}

/** Whether the request is of the stateless 2026-07-28 revision, after checking the headers that say so. */
function isModern(req: IncomingMessage, request: RpcRequest): boolean {
  const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
  const sentVersion = header('mcp-protocol-version');
  if (request.method === 'initialize') return false; // the handshake itself; answered with a version it serves
  const meta = request.params._meta as Record<string, unknown> | undefined;
  const version = typeof meta === 'object' && meta !== null ? meta[VERSION_KEY] : undefined;
  if (version === undefined) {
    if (sentVersion === undefined || HANDSHAKE_VERSIONS.includes(sentVersion)) return false; // none: 2025-03-26
    if (sentVersion === MODERN)
      throw invalidParams(
        `Invalid params: MCP-Protocol-Version is ${MODERN}, but params._meta has no "${VERSION_KEY}".`,
      );
    throw unsupported(sentVersion);
  }
  // A handshake revision's client may name its version in _meta too: it is served as that revision,
  // when its header says the same.
  if (typeof version === 'string' && HANDSHAKE_VERSIONS.includes(version)) {
    if (sentVersion === version) return false;
    throw mismatch('MCP-Protocol-Version', sentVersion, version);
  }
  if (version !== MODERN) throw unsupported(version);
  if (sentVersion !== version) throw mismatch('MCP-Protocol-Version', sentVersion, version);
  if (header('mcp-method') !== request.method) throw mismatch('Mcp-Method', header('mcp-method'), request.method);
  if (request.method === 'tools/call' && decoded(header('mcp-name')) !== request.params.name)
    throw mismatch('Mcp-Name', header('mcp-name'), request.params.name);
  const capabilities = (meta as Record<string, unknown>)[CAPABILITIES_KEY];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
    throw invalidParams(
      `Invalid params: ${MODERN} requires params._meta["${CAPABILITIES_KEY}"] on every request, an object ({} ` +
        'when the client declares none).',
    );
  }
  return true;
}

/** A header value that may be Base64 in the =?base64?…?= form. */
function decoded(value: string | undefined): string | undefined {
  const sentinel = value === undefined ? null : /^=\?base64\?(.*)\?=$/.exec(value);
  return sentinel ? Buffer.from(sentinel[1] as string, 'base64').toString('utf8') : value;
}

async function dispatch(ctx: ClientContext, request: RpcRequest, modern: boolean): Promise<Record<string, unknown>> {
  const method = request.method;
  if (method === 'initialize') {
    const asked = request.params.protocolVersion;
    const protocolVersion =
      typeof asked === 'string' && HANDSHAKE_VERSIONS.includes(asked) ? asked : HANDSHAKE_VERSIONS[0];
    const told = instructions(ctx.app.config);
    return { protocolVersion, capabilities: CAPABILITIES, serverInfo: SERVER_INFO, instructions: told };
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
      const name = shown(request.params.name);
      const said = `Unknown tool ${name}; tools/list names the ${TOOL_NAMES.length} tools.`;
      throw new RpcError(-32602, refuse('unknown_tool', said));
    }
    const refused = result.refusal && { tool_refusal: result.refusal.status, refusal: result.refusal.reason };
    ctx.note({ tool: request.params.name as string, ...refused }); // a known tool's name: callTool found it
    const { refusal: _refusal, ...toolResult } = result;
    return toolResult;
  }
  // The 2026-07-28 revision answers an unknown method with 404; the handshake's revisions in band.
  throw new RpcError(-32601, refuse('no_method', `Method not found: ${shown(method)}.`), modern ? 404 : 200);
}

/** OPTIONS /mcp: 204 like every path; the CORS preflight headers only for an allowed origin. */
export function mcpPreflight(ctx: RequestContext): Reply {
  return { status: 204, body: '', headers: doorPreflightHeaders(ctx.app.config, MCP_DOOR, ctx.req, 'POST, OPTIONS') };
}
