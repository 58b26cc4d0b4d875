// The catalogue's refusals of the JSON-RPC doors' own protocols (refusal.ts has them all): what MCP
// and A2A refuse of a request as such, beyond the rules every door shares. Their sentences are the
// door's own, given where the rule is judged; the reason is the one vocabulary an agent's error
// handler keys on, whichever door it used.

import { entry } from './entry.ts';
import type { Terms } from './terms.ts';

const said = (_t: Terms, sentence: string) => sentence;

export const PROTOCOL_REFUSALS = {
  invalid_request: entry(400, ['mcp', 'a2a'], 'The body is not one JSON-RPC 2.0 request.', said),
  no_method: entry(404, ['mcp', 'a2a'], 'The JSON-RPC method is not one this door serves.', said),
  invalid_params: entry(400, ['mcp', 'a2a'], "A protocol call's params break the protocol's rules.", said),
  protocol_version: entry(400, ['mcp', 'a2a'], 'The protocol version the request names is not served.', said),
  header_mismatch: entry(400, ['mcp'], 'An MCP header says otherwise than the body.', said),
  unknown_tool: entry(400, ['mcp'], 'tools/call names no tool of this server.', said),
  unsupported_part: entry(400, ['a2a'], "An A2A message part's content type is not accepted.", said),
  unsupported_operation: entry(400, ['a2a'], 'The A2A operation is not served (streaming, the extended card).', said),
};
