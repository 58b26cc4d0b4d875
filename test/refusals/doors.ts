// Reading a refusal's reason as each door gives it, for the walk of the catalogue
// (test/refusals/vocabulary*.test.ts): REST's error body, MCP's tool refusal or JSON-RPC error, A2A's
// ErrorInfo metadata on JSON-RPC and on HTTP+JSON. One error handler keyed on `reason` reads them all.

import { request, type ApiResponse, type TestService } from '../helpers.ts';
import * as a2a from '../doors/a2a/calls.ts';
import * as mcp from '../doors/mcp/calls.ts';

export type Door = 'rest' | 'mcp' | 'a2a';

/** The reason of a REST refusal. */
export function restReason(answer: ApiResponse): string | undefined {
  return answer.body?.error?.reason;
}

/** The reason of an MCP answer: a tool's refusal, or a JSON-RPC error's data. */
export function mcpReason(answer: ApiResponse): string | undefined {
  const result = answer.body?.result;
  if (result?.isError) return JSON.parse(result.content[0].text).error.reason;
  return answer.body?.error?.data?.reason;
}

/** The reason of an A2A answer, from its ErrorInfo's metadata (JSON-RPC `data`, HTTP+JSON `details`). */
export function a2aReason(answer: ApiResponse): string | undefined {
  const error = answer.body?.error;
  const details = (error?.data ?? error?.details ?? []) as { '@type': string; metadata?: { reason: string } }[];
  return details.find((detail) => detail['@type'].endsWith('ErrorInfo'))?.metadata?.reason;
}

/** A tools/call on /mcp, with its reason. */
export async function mcpTool(service: TestService, name: string, args: unknown, headers: Record<string, string> = {}) {
  return mcpReason(await mcp.rpc(service, mcp.call('tools/call', { name, arguments: args }), { headers }));
}

/** An A2A JSON-RPC call, with its reason. */
export async function a2aCall(
  service: TestService,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
) {
  return a2aReason(await a2a.rpc(service, method, params, headers));
}

/** A REST call, with its reason. */
export async function rest(
  service: TestService,
  method: string,
  path: string,
  options: Parameters<typeof request>[3] = {},
): Promise<string | undefined> {
  return restReason(await request(service.url, method, path, options));
}
