// The benchmark's reference: a bare node:http server that answers each known request with
// precomputed bytes (the same status, headers and body sizes the service answers with).
// It is the ceiling for what any node:http service could reach on this machine.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Canned {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const canned = JSON.parse(readFileSync(process.env.RESPONSES_FILE as string, 'utf8')) as Record<string, Canned>;
const answers = new Map(
  Object.entries(canned).map(([key, answer]) => {
    const body = Buffer.from(answer.body);
    return [
      key,
      { status: answer.status, headers: { ...answer.headers, 'content-length': String(body.length) }, body },
    ];
  }),
);

const server = http.createServer((req, res) => {
  const answer = answers.get(`${req.method} ${req.url}`);
  if (!answer) {
    res.writeHead(404).end();
    return;
  }
  if (req.method === 'POST') {
    req.resume();
    req.on('end', () => res.writeHead(answer.status, answer.headers).end(answer.body));
    return;
  }
  res.writeHead(answer.status, answer.headers).end(answer.body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`Listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
