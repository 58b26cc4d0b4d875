// The node:http server's own refusals (src/http/server.ts): a client refused before any route, here
// for taking too long (408), gets its answer and loses its socket, whether or not it ever reads it or
// closes its side. Counted in this process's open file descriptors (Linux's /proc/self/fd). A CONNECT
// reset while its refusal is written does not stop the server.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { request, SHORT_TIMEOUTS, startTestService, waitUntil } from '../helpers.ts';

const openDescriptors = () => readdirSync('/proc/self/fd').length;

/** As many sockets as the descriptor limit leaves room for twice over (server's and client's), up to 1,000. */
function socketsToOpen(): number {
  const limit = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 1024);
  return Math.min(1_000, Math.floor((limit - 200) / 3));
}

test('1,000 clients that never read their 408 lose their sockets on the server within the grace', async (t) => {
  const service = await startTestService(t, { timeouts: SHORT_TIMEOUTS });
  const { hostname, port } = new URL(service.url);
  const count = socketsToOpen();
  const before = openDescriptors();
  const clients: net.Socket[] = [];
  t.after(() => {
    for (const client of clients) client.destroy();
  });
  let connected = 0;
  for (let i = 0; i < count; i++) {
    const client = net.connect(Number(port), hostname, () => {
      connected++;
      client.write('GET /api/v1/health HTTP/1.1\r\nX-Slow: ');
    });
    client.pause(); // never reads the answer, never closes its side
    client.on('error', () => {});
    clients.push(client);
  }
  await waitUntil(() => connected === count, 'every client is connected', 20_000);
  // Each gets 408 after 300 ms; the answer is written at once, and the server's side goes.
  await waitUntil(() => openDescriptors() <= before + count + 20, 'the server released its descriptors', 20_000);
  assert.ok(
    clients.every((client) => !client.destroyed),
    'the clients still hold theirs: none of them closed',
  );
});

test('clients that send CONNECT and reset the connection at once do not stop the server', async (t) => {
  const service = await startTestService(t);
  const { hostname, port } = new URL(service.url);
  let closed = 0;
  for (let i = 0; i < 20; i++) {
    const client = net.connect(Number(port), hostname, () => {
      client.write(`CONNECT a.example:443 HTTP/1.1\r\nHost: a.example\r\n\r\n${'x'.repeat(64 * 1024)}`);
      client.resetAndDestroy(); // the server's 405 meets a reset connection
    });
    client.on('error', () => {});
    client.on('close', () => closed++);
  }
  await waitUntil(() => closed === 20, 'every client has reset its connection');
  assert.equal((await request(service.url, 'GET', '/api/v1/health')).status, 200, 'the server still answers');
});
