// A webhook or push receiver on loopback for the tests: records every POST, and answers each
// with the status `answer` gives for its number (1 for the first), or holds it ('hang').

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export async function receiver(t: TestContext, answer: (n: number) => number | 'hang' = () => 204) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const status = answer(received.length);
      if (status === 'hang') return;
      const redirect = status >= 300 && status < 400;
      res.writeHead(status, redirect ? { location: '/elsewhere' } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?kind=agent`, received };
}
