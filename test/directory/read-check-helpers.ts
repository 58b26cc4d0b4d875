// Local sites for the read-check tests: servers on port 0 that answer by path, a port nothing
// listens on, and a listing made to point at them (allowed by OUTBOUND_ALLOWED_HOSTS, as a test must).

import http from 'node:http';
import { createServer } from 'node:net';
import type { TestContext } from 'node:test';
import { request, type TestService } from '../helpers.ts';

export const ALLOWED = { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' };

export interface Seen {
  readonly method: string;
  readonly path: string;
  readonly userAgent: string;
}

/** A local server answering by path; it records every request and how many were open at once. */
export async function site(t: TestContext, answer: (path: string, res: http.ServerResponse, count: number) => void) {
  const seen: Seen[] = [];
  let open = 0;
  let mostAtOnce = 0;
  const server = http.createServer((req, res) => {
    open += 1;
    mostAtOnce = Math.max(mostAtOnce, open);
    res.on('close', () => (open -= 1));
    seen.push({ method: req.method ?? '', path: req.url ?? '', userAgent: req.headers['user-agent'] ?? '' });
    answer(req.url ?? '', res, seen.filter((s) => s.path === req.url).length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, seen, mostAtOnce: () => mostAtOnce };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export function listing(slug: string, fields: Record<string, string>) {
  return {
    slug,
    kind: 'tool',
    name: slug,
    category: 'test',
    description: 'A listing for the read check.',
    tags: 'test',
    details: {},
    verified_at: '2026-11-01',
    status: 'documented',
    check_status: 'unchecked',
    checked_at: '',
    ...fields,
  };
}

export async function listed(service: TestService, slug: string) {
  return (await request(service.url, 'GET', `/api/v1/directory/${slug}`)).body;
}
