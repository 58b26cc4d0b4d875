// A POST held after its headers, for race tests: many requests past every check made before the
// body, then their bodies sent together.

import http from 'node:http';
import type { ApiResponse } from './helpers.ts';

/**
 * A POST whose headers reach the server now and whose body waits until `send()`: with
 * `Expect: 100-continue`, `continued` settles once the server has passed every check made
 * before the body and asks for it (or has answered without it). Races are tested with it:
 * many requests in flight at once, then their bodies together.
 */
export function heldRequest(
  base: string,
  urlPath: string,
  options: { token?: string; key?: string; json: unknown; headers?: Record<string, string> },
) {
  const body = Buffer.from(JSON.stringify(options.json));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    expect: '100-continue',
    ...options.headers,
  };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const req = http.request(`${base}${urlPath}`, { method: 'POST', headers });
  const response = new Promise<ApiResponse>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const fetchHeaders = new Headers(res.headers as Record<string, string>);
        resolve({ status: res.statusCode ?? 0, headers: fetchHeaders, text, body: parsed });
      });
    });
  });
  const continued = new Promise<void>((resolve) => {
    req.on('continue', () => resolve());
    req.on('response', () => resolve());
  });
  req.flushHeaders();
  return {
    continued,
    send(): Promise<ApiResponse> {
      req.end(body);
      return response;
    },
  };
}
