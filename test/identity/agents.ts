// Verified agents end to end: key directories served on 127.0.0.1 under names of the .test domain
// (agent.test and its subdomains, other sites; allowed through OUTBOUND_ALLOWED_HOSTS, resolved by the
// test's own resolver), and requests signed for the running service by http-message-signatures, an
// RFC 9421 implementation by another author.

import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import { request, startTestService, type TestService } from '../helpers.ts';
import { agentKey, signRequest, type AgentKey, type SignOptions } from './signing.ts';

export { agentKey, type AgentKey };

/** private.test resolves to a private address, as an attacker's might; every other name of .test to 127.0.0.1. */
const NAMES: Record<string, string> = { 'private.test': '10.1.2.3' };

/** The hosts key directories are served under in these tests: one site with subdomains, and other sites. */
export const TEST_HOSTS = [
  'agent.test',
  ...['a', 'b', 'c', 'd'].map((sub) => `${sub}.agent.test`),
  ...Array.from({ length: 8 }, (_, i) => `site${i + 1}.test`),
];

/** The test's resolver: the names above, every other name unknown. */
export function resolve(hostname: string): Promise<readonly LookupAddress[]> {
  const address = NAMES[hostname] ?? (TEST_HOSTS.includes(hostname) ? '127.0.0.1' : undefined);
  if (address === undefined) return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
  return Promise.resolve([{ address, family: 4 }]);
}

export type KeyDirectoryAnswer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A JWK Set of the keys' public halves, as an agent operator publishes it. */
export function jwkSet(keys: readonly AgentKey[], maxAgeSeconds = 3600): KeyDirectoryAnswer {
  const body = JSON.stringify({ keys: keys.map(({ jwk }) => ({ kty: 'OKP', crv: 'Ed25519', x: jwk.x })) });
  return (_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/http-message-signatures-directory+json',
      'cache-control': `max-age=${maxAgeSeconds}`,
    });
    res.end(body);
  };
}

export interface KeyDirectory {
  /** The agent's identity and Signature-Agent value: http://<host>:<port> */
  readonly origin: string;
  /** The paths asked for, in order: one per fetch. */
  readonly fetched: string[];
  /** What the next fetch gets: the key's JWK Set by default. */
  answer: KeyDirectoryAnswer;
}

/**
 * A key directory on 127.0.0.1 publishing `keys` at every path, named `host` (a name of TEST_HOSTS),
 * closed (connections too) when the test ends.
 */
export async function startKeyDirectory(
  t: TestContext,
  keys: readonly AgentKey[],
  host = 'agent.test',
): Promise<KeyDirectory> {
  const directory: KeyDirectory = { origin: '', fetched: [], answer: jwkSet(keys) };
  const server = http.createServer((req, res) => {
    directory.fetched.push(req.url ?? '');
    directory.answer(req, res);
  });
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return Object.assign(directory, { origin: `http://${host}:${port}` });
}

/** The service, allowed to read key directories on the test hosts over http, with the test's resolver. */
export function startVerifyingService(
  t: TestContext,
  options: Parameters<typeof startTestService>[1] = {},
): Promise<TestService> {
  const env = { OUTBOUND_ALLOWED_HOSTS: TEST_HOSTS.join(','), ...options.env };
  return startTestService(t, { ...options, env, lookups: { resolve, ...options.lookups } });
}

export interface Signing extends Partial<SignOptions> {
  readonly key: AgentKey;
  /** the Signature-Agent member's URL: the key directory's origin, or any URL a test chooses */
  readonly agent: string;
  /** the service's clock, in ms: created is 5 s before it */
  readonly now?: number;
}

/**
 * The headers that sign a request to `service` at `method path`: Signature-Agent in the dictionary
 * form, covering @authority and its member, valid for 5 minutes, with a random nonce (Ed25519 signs
 * the same base to the same bytes, and a signature authorizes one write). Fetch takes each as one string.
 */
export async function signedHeaders(
  service: TestService,
  method: string,
  path: string,
  signing: Signing,
): Promise<Record<string, string>> {
  const created = Math.floor((signing.now ?? Date.now()) / 1000) - 5;
  const headers = await signRequest({
    created,
    method,
    url: `${service.url}${path}`,
    headers: { 'Signature-Agent': `sig1="${signing.agent}"` },
    params: ['created', 'expires', 'keyid', 'alg', 'nonce', 'tag'],
    paramValues: { nonce: randomBytes(16).toString('base64url') },
    ...signing,
  });
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
  );
}

/** How many conversations and messages the service's database holds, read beside it. */
export function stored(service: TestService): { conversations: number; messages: number } {
  const db = new DatabaseSync(service.dbPath, { readOnly: true });
  try {
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { conversations: count('conversations'), messages: count('messages') };
  } finally {
    db.close();
  }
}

/** The verified_agent of the conversation an opening answered, read back with its credential. */
export async function verifiedAgentOf(service: TestService, opened: { body: any }): Promise<unknown> {
  const { id, access_token: token } = opened.body;
  const record = await request(service.url, 'GET', `/api/v1/conversations/${id}`, { token });
  return record.body.verified_agent;
}
