// Calling the A2A door from tests: a JSON-RPC request, a message, a credential header, an opening.

import { randomUUID } from 'node:crypto';
import { request, type TestService } from '../../helpers.ts';

export const V = { 'a2a-version': '1.0' };

export function rpc(service: TestService, method: string, params: unknown, headers: Record<string, string> = {}) {
  return request(service.url, 'POST', '/a2a', {
    json: { jsonrpc: '2.0', id: 7, method, params },
    headers: { ...V, ...headers },
  });
}
export const message = (text: unknown, extra: Record<string, unknown> = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function openOverA2a(service: TestService) {
  const opened = await rpc(service, 'SendMessage', message('Hello.'));
  const task = opened.body.result.task;
  return { id: task.id as string, token: task.metadata.accessToken as string };
}
