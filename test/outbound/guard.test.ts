// The outbound guard: public addresses only, https unless allowed, no redirect, a time-out, a bounded body.

import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { isPublicAddress } from '../../src/base/addresses.ts';
import {
  checkOutboundUrl,
  checkResolvesPublic,
  OutboundRefusal,
  type OutboundPolicy,
  sendOutbound,
} from '../../src/outbound/guard.ts';

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

function assertRefusal(rule: string, message: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof OutboundRefusal, `expected an OutboundRefusal, got ${String(err)}`);
    assert.equal(err.rule, rule);
    assert.match(err.message, message);
    return true;
  };
}

test('isPublicAddress takes public addresses and refuses every special-purpose range, mapped forms included', () => {
  const table: [string, boolean][] = [
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['93.184.215.14', true],
    ['192.31.196.1', true],
    ['100.128.0.1', true],
    ['9.255.255.255', true],
    ['11.0.0.0', true],
    ['100.63.255.255', true],
    ['223.255.255.255', true],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['10.0.0.5', false],
    ['100.64.0.1', false],
    ['100.127.255.255', false],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['169.254.169.254', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.0.0.9', false],
    ['192.0.0.170', false],
    ['192.0.2.1', false],
    ['192.88.99.1', false],
    ['192.168.1.1', false],
    ['198.18.0.1', false],
    ['198.19.255.255', false],
    ['198.20.0.1', true],
    ['198.51.100.7', false],
    ['203.0.113.9', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['240.0.0.1', false],
    ['255.255.255.255', false],
    ['2606:4700:4700::1111', true],
    ['2001:4860:4860::8888', true],
    ['2620:4f:8000::1', true],
    ['2000::1', true],
    ['2001:200::1', true],
    ['1fff:ffff::1', false],
    ['2001:1ff:ffff::1', false],
    ['::', false],
    ['::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['febf::1', false],
    ['fec0::1', false],
    ['ff02::1', false],
    ['ff0e::1', false],
    ['2001:db8::1', false],
    ['3fff::1', false],
    ['100::1', false],
    ['2001::1', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['64:ff9b:1::1', false],
    ['5f00::1', false],
    ['4000::1', false],
    ['::ffff:0:0:1', false],
    ['::ffff:8.8.8.8', true],
    ['::ffff:808:808', true],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.5', false],
    ['::ffff:169.254.169.254', false],
    ['0:0:0:0:0:ffff:c0a8:101', false],
    ['::8.8.8.8', true],
    ['::127.0.0.1', false],
    ['::10.0.0.5', false],
    ['64:ff9b::8.8.8.8', true],
    ['64:ff9b::10.0.0.5', false],
    ['64:ff9b::7f00:1', false],
    ['2002:808:808::1', true],
    ['2002:a00:5::1', false],
    ['2002:7f00:1::', false],
    ['2002:c0a8:101::1', false],
    ['fe80::1%eth0', false],
    ['localhost', false],
    ['', false],
    ['1.2.3.04', false],
    ['::ffff:1.2.3', false],
  ];
  for (const [address, expected] of table) assert.equal(isPublicAddress(address), expected, address);
});

test('checkOutboundUrl refuses each broken rule with a sentence naming it, echoing at most a bounded part', () => {
  const table: [unknown, string, RegExp][] = [
    [42, 'url', /^the URL must be a string$/],
    [`https://example.com/${'a'.repeat(2100)}`, 'length', /^the URL must be at most 2048 characters \(it has 2120\)$/],
    ['not a url', 'url', /^the URL is not a valid absolute URL \(https:\/\/host\/path\)$/],
    ['ftp://example.com/hook', 'scheme', /^the URL must use https, not ftp$/],
    ['http://example.com/hook', 'http', /^the URL must use https, not http; http is only for hosts the owner/],
    ['https://user:secret@example.com/hook', 'userinfo', /user name or password/],
    ['https://:secret@example.com/hook', 'userinfo', /user name or password/],
    ['https://10.0.0.5/hook', 'address', /^the URL's host 10\.0\.0\.5 is a private address \(10\.0\.0\.5\), which/],
    ['https://2130706433/', 'address', /127\.0\.0\.1 is a loopback address/],
    ['https://0x7f.1/', 'address', /a loopback address/],
    ['https://127.0.0.1./', 'address', /a loopback address/],
    ['https://[::1]:8443/', 'address', /a loopback address \(::1\)/],
    ['https://[::ffff:169.254.169.254]/', 'address', /an IPv4-mapped form of a link-local address/],
    ['https://[fe80::1]/', 'address', /a link-local address/],
  ];
  for (const [raw, rule, message] of table) {
    assert.throws(() => checkOutboundUrl(raw, NO_HOSTS), assertRefusal(rule, message), String(raw));
  }
  const long = `https://${'x'.repeat(3000)}`;
  assert.throws(
    () => checkOutboundUrl(long, NO_HOSTS),
    (err: Error) => err.message.length < 120,
  );
  const invalid = `https://user:secret@[${'x'.repeat(1500)}`;
  assert.throws(
    () => checkOutboundUrl(invalid, NO_HOSTS),
    (err: Error) => !err.message.includes('secret'),
  );
});

test('checkOutboundUrl takes https on any port, and http and private addresses only for allowed hosts', () => {
  const anyPort = 'https://example.com:8443/hook?x=1';
  assert.equal(checkOutboundUrl(anyPort, NO_HOSTS).href, anyPort);
  assert.equal(checkOutboundUrl('https://8.8.8.8/', NO_HOSTS).hostname, '8.8.8.8');
  const intranet: OutboundPolicy = { allowedHosts: ['127.0.0.1', 'hooks.internal', '::1'] };
  assert.equal(checkOutboundUrl('http://127.0.0.1:9/', intranet).port, '9');
  assert.equal(checkOutboundUrl('http://HOOKS.internal./x', intranet).hostname, 'hooks.internal.');
  assert.equal(checkOutboundUrl('http://[0:0:0:0:0:0:0:1]/', intranet).hostname, '[::1]');
  assert.throws(() => checkOutboundUrl('http://127.0.0.2/', intranet), assertRefusal('http', /https/));
  assert.throws(() => checkOutboundUrl('https://127.0.0.2/', intranet), assertRefusal('address', /loopback/));
});

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
