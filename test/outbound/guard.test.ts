// The outbound guard as it sends: the resolved address checked, no redirect, a time-out, a bounded body.
// What it checks before sending is in addresses.test.ts.

import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import {
  checkOutboundUrl,
  checkResolvesPublic,
  OutboundRefusal,
  type OutboundPolicy,
  sendOutbound,
} from '../../src/outbound/guard.ts';
import { assertRefusal } from './refusal.ts';

const NO_HOSTS: OutboundPolicy = { allowedHosts: [] };
const GET = { method: 'GET', headers: {}, timeoutMs: 5000 } as const;

// A self-signed certificate for localhost and 127.0.0.1, valid until 2126: made for this test only.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgaRZ4ErUFIbysv2sL
PO3z60T8LJvXIyvFibTGLwohB2mhRANCAASvd71BVI3acnJiVn1ntj5rs+ouGT4c
ArR8Ez5MczFZrb3YA5UKuBOeFwYBMJsxsjHsB8PUWM5mLX2bMy+79gvy
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUYwP8/qn53Gi2KgMbMnXp8vQ1VJcwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNDE5MDAwMloYDzIxMjYxMDMx
MTkwMDAyWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASvd71BVI3acnJiVn1ntj5rs+ouGT4cArR8Ez5MczFZrb3YA5UKuBOe
FwYBMJsxsjHsB8PUWM5mLX2bMy+79gvyo28wbTAdBgNVHQ4EFgQUzcN8d8X7savr
uvve1C+1WkcGOMEwHwYDVR0jBBgwFoAUzcN8d8X7savruvve1C+1WkcGOMEwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDRwAwRAIgebF+FnT7+GdKl2z2U6uG0Lhh96dpSc9IPN1kp0RFB4oCIGEa
1BPKoeXX2U36Y69kFjzwfDZRzrpZk0mV2I01ssjO
-----END CERTIFICATE-----`;

/** Starts a server on 127.0.0.1, port 0, closed (with its connections) when the test ends. */
async function listen<S extends net.Server>(t: TestContext, server: S): Promise<number> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A plain TCP server that only counts the connections made to it. */
async function countingServer(t: TestContext) {
  const seen = { connections: 0 };
  const port = await listen(
    t,
    net.createServer((socket) => {
      seen.connections += 1;
      socket.destroy();
    }),
  );
  return { port, seen };
}

/** An http server that answers each request with `answer` and keeps what it received. */
async function httpServer(t: TestContext, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const received: http.IncomingMessage[] = [];
  const port = await listen(
    t,
    http.createServer((req, res) => {
      received.push(req);
      answer(req, res);
    }),
  );
  return { port, received };
}

const resolvesTo =
  (...addresses: string[]) =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: net.isIP(address) }));

test('a local http server on 127.0.0.1 is reached only when its host is an allowed host', async (t) => {
  const server = await httpServer(t, (_req, res) => res.end('ok'));
  const url = new URL(`http://127.0.0.1:${server.port}/hook`);
  await assert.rejects(sendOutbound(url, GET, NO_HOSTS), assertRefusal('http', /must use https/));
  const tls = new URL(`https://127.0.0.1:${server.port}/hook`);
  await assert.rejects(sendOutbound(tls, GET, NO_HOSTS), assertRefusal('address', /loopback address \(127\.0\.0\.1\)/));
  const byName = new URL(`https://localhost:${server.port}/hook`);
  const notPublic = assertRefusal('address', /host localhost does not resolve to public/);
  await assert.rejects(sendOutbound(byName, GET, NO_HOSTS), notPublic);
  assert.equal(server.received.length, 0);

  const answer = await sendOutbound(url, GET, { allowedHosts: ['127.0.0.1'] });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.toString(), 'ok');
  const local = await sendOutbound(new URL(`http://localhost:${server.port}/x`), GET, { allowedHosts: ['localhost'] });
  assert.equal(local.status, 200);
  assert.equal(server.received.length, 2);
});

// One sentence whatever the name resolves to, or if it does not: an agent learns no internal name or address.
const NOT_PUBLIC = 'the host hooks.example.com does not resolve to public addresses only; this service calls no other';

test('a name that resolves to a private address is refused and nothing is connected', async (t) => {
  const target = await countingServer(t);
  const url = new URL(`https://hooks.example.com:${target.port}/hook`);
  const privateOnly: OutboundPolicy = { allowedHosts: [], resolve: resolvesTo('10.0.0.5') };
  const refusedPrivate = assertRefusal('address', new RegExp(`^${NOT_PUBLIC}$`));
  await assert.rejects(sendOutbound(url, GET, privateOnly), refusedPrivate);
  await assert.rejects(checkResolvesPublic(url, privateOnly), refusedPrivate);
  // The loopback address comes first: were it not refused, the counting server would see a connection.
  const mixed: OutboundPolicy = { allowedHosts: [], resolve: resolvesTo('127.0.0.1', '8.8.8.8') };
  await assert.rejects(sendOutbound(url, GET, mixed), refusedPrivate);
  await assert.rejects(checkResolvesPublic(url, mixed), refusedPrivate);
  const mapped: OutboundPolicy = { allowedHosts: [], resolve: resolvesTo('::ffff:127.0.0.1') };
  await assert.rejects(sendOutbound(url, GET, mapped), refusedPrivate);
  const longName = new URL(`https://${'a'.repeat(60)}.${'b'.repeat(60)}.example/`);
  await assert.rejects(checkResolvesPublic(longName, privateOnly), (err: Error) => err.message.length < 200);
  assert.equal(target.seen.connections, 0);

  await checkResolvesPublic(url, { allowedHosts: [], resolve: resolvesTo('8.8.8.8', '2001:4860:4860::8888') });
  const missing = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  const unresolved: OutboundPolicy = { allowedHosts: [], resolve: () => Promise.reject(missing) };
  await assert.rejects(checkResolvesPublic(url, unresolved), assertRefusal('resolve', new RegExp(`^${NOT_PUBLIC}$`)));
  await assert.rejects(sendOutbound(url, GET, unresolved), (err: Error) => {
    assert.ok(!(err instanceof OutboundRefusal), 'a failed lookup may be retried later');
    assert.equal(err.message, NOT_PUBLIC, 'the same sentence as a private address');
    return true;
  });
});

test('an allowed name connects to the resolved address, sends the URL host and never a cookie', async (t) => {
  const server = await httpServer(t, (_req, res) => res.end());
  const policy: OutboundPolicy = { allowedHosts: ['hooks.internal'], resolve: resolvesTo('127.0.0.1') };
  const url = new URL(`http://hooks.internal:${server.port}/hook?event=1`);
  const headers = { 'Content-Type': 'application/json', Cookie: 'session=1', Host: 'evil.example' };
  const answer = await sendOutbound(url, { method: 'POST', headers, body: '{"a":"é"}', timeoutMs: 5000 }, policy);
  assert.equal(answer.status, 200);
  const [received] = server.received as [http.IncomingMessage];
  assert.equal(received.url, '/hook?event=1');
  assert.equal(received.headers.host, `hooks.internal:${server.port}`);
  assert.equal(received.headers.cookie, undefined);
  assert.equal(received.headers['content-length'], '10');
});

test('a redirect is answered as a status and not followed', async (t) => {
  const target = await httpServer(t, (_req, res) => res.end('target'));
  const redirecting = await httpServer(t, (_req, res) => {
    res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/` }).end();
  });
  const url = new URL(`http://127.0.0.1:${redirecting.port}/`);
  const answer = await sendOutbound(url, GET, { allowedHosts: ['127.0.0.1'] });
  assert.equal(answer.status, 302);
  assert.equal(answer.headers.location, `http://127.0.0.1:${target.port}/`);
  assert.equal(target.received.length, 0);
});

test('a server that never answers is cut off at the time-out', async (t) => {
  const silent = await httpServer(t, () => {});
  const url = new URL(`http://127.0.0.1:${silent.port}/`);
  const started = performance.now();
  await assert.rejects(sendOutbound(url, { ...GET, timeoutMs: 300 }, { allowedHosts: ['127.0.0.1'] }), {
    message: `the request to 127.0.0.1:${silent.port} did not finish within 300 ms`,
  });
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 250 && elapsed < 3000, `cut off after ${Math.round(elapsed)} ms`);
  assert.equal(silent.received.length, 1);
});

test('a server that stops in the middle of its body is cut off at the time-out too', async (t) => {
  const stalling = await httpServer(t, (_req, res) => res.write('partial'));
  const url = new URL(`http://127.0.0.1:${stalling.port}/`);
  await assert.rejects(sendOutbound(url, { ...GET, timeoutMs: 300 }, { allowedHosts: ['127.0.0.1'] }), {
    message: /did not finish within 300 ms/,
  });
});

test('a huge answer body is read only up to the bound and the rest is dropped', async (t) => {
  const huge = await httpServer(t, (_req, res) => res.end(Buffer.alloc(8 * 1024 * 1024, 'a')));
  const url = new URL(`http://127.0.0.1:${huge.port}/`);
  const policy = { allowedHosts: ['127.0.0.1'] };
  const answer = await sendOutbound(url, { ...GET, maxBodyBytes: 64 * 1024 }, policy);
  assert.equal(answer.status, 200);
  assert.equal(answer.body.length, 64 * 1024);
  const small = await sendOutbound(url, { ...GET, maxBodyBytes: 10 }, policy);
  assert.equal(small.body.toString(), 'aaaaaaaaaa');
});

test('https checks the certificate and sends the URL host name as SNI', async (t) => {
  const names: string[] = [];
  const SNICallback = (name: string, done: (err: null) => void) => {
    names.push(name);
    done(null); // the default certificate
  };
  const server = https.createServer({ key: TEST_KEY, cert: TEST_CERT, SNICallback }, (_req, res) => res.end('hi'));
  const port = await listen(t, server);
  const url = new URL(`https://localhost:${port}/hook`);
  await assert.rejects(sendOutbound(url, GET, { allowedHosts: ['localhost'] }), {
    message: `TLS with localhost:${port} failed (DEPTH_ZERO_SELF_SIGNED_CERT)`,
  });
  assert.deepEqual(names, ['localhost']);
});

test('a refused connection is reported in one short sentence', async (t) => {
  const closed = net.createServer();
  const port = await listen(t, closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const url = new URL(`http://127.0.0.1:${port}/`);
  await assert.rejects(sendOutbound(url, GET, { allowedHosts: ['127.0.0.1'] }), {
    message: `the connection to 127.0.0.1:${port} was refused`,
  });
});

test('a name whose DNS never answers is given up at the lookup time-out, as one that does not resolve', async () => {
  const url = new URL('https://hooks.example.com/hook');
  const silent: OutboundPolicy = { allowedHosts: [], resolve: () => new Promise(() => {}), lookupTimeoutMs: 50 };
  const started = Date.now();
  await assert.rejects(checkResolvesPublic(url, silent), assertRefusal('resolve', new RegExp(`^${NOT_PUBLIC}$`)));
  await assert.rejects(sendOutbound(url, GET, silent), (err: Error) => err.message === NOT_PUBLIC);
  assert.ok(Date.now() - started < 5_000, 'not held until a system resolver gives up');
});

test('OUTBOUND_ALLOWED_HOSTS with a port allows that port only; a bare host allows every port', async (t) => {
  const allowed = await httpServer(t, (_req, res) => res.end());
  const other = await httpServer(t, (_req, res) => res.end());
  const policy: OutboundPolicy = { allowedHosts: [`127.0.0.1:${allowed.port}`, '[::1]:8080', 'hooks.internal:443'] };
  assert.equal((await sendOutbound(new URL(`http://127.0.0.1:${allowed.port}/`), GET, policy)).status, 200);
  assert.throws(() => checkOutboundUrl(`http://127.0.0.1:${other.port}/`, policy), /must use https/);
  assert.throws(() => checkOutboundUrl(`https://127.0.0.1:${other.port}/`, policy), /a loopback address/);
  assert.equal(other.received.length, 0, 'another port of the allowed host is never called');
  assert.equal(checkOutboundUrl('http://[::1]:8080/', policy).port, '8080');
  assert.throws(() => checkOutboundUrl('http://[::1]:8081/', policy), /must use https/);
  assert.equal(checkOutboundUrl('https://hooks.internal/', policy).hostname, 'hooks.internal', 'https is port 443');
  assert.throws(() => checkOutboundUrl('http://hooks.internal/', policy), /must use https/, 'http is port 80');
  const bare: OutboundPolicy = { allowedHosts: ['127.0.0.1'] };
  assert.equal((await sendOutbound(new URL(`http://127.0.0.1:${other.port}/`), GET, bare)).status, 200);
});
