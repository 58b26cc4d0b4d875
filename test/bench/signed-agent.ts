// The benchmark's verified agent: a key directory on 127.0.0.1, kept by the service for a day, and
// the Web Bot Auth headers of its requests, signed once by http-message-signatures (the library
// the tests sign with). They cover @authority and Signature-Agent only, so one set serves every
// read to every process of the service, all of which take PUBLIC_AUTHORITY as their own. A write
// needs a signature of its own (one authorizes one write): `signWrites` makes them, each with a
// nonce, ahead of a run, with node:crypto itself, for wrk to send one per request.

import { randomUUID, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentKey, signRequest } from '../identity/signing.ts';

/** The public URL every process of the service is given, so that one signature is valid on each. */
export const PUBLIC_BASE_URL = 'http://contact.bench';

export interface BenchAgent {
  /** the service's environment: its public URL, and the directory's host allowed over http */
  readonly env: Record<string, string>;
  /** Signature-Agent, Signature-Input and Signature, as wrk sends them */
  readonly headers: Record<string, string>;
  /** `count` fresh Signature-Input and Signature pairs, each with its own nonce: one per write */
  signWrites(count: number): [input: string, signature: string][];
  stop(): Promise<void>;
}

export async function startBenchAgent(): Promise<BenchAgent> {
  const key = agentKey();
  const directory = JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: key.jwk.x }] });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=86400' }).end(directory);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const created = Math.floor(Date.now() / 1000) - 5;
  const signed = await signRequest({
    key,
    created,
    expires: created + 86_400, // the longest validity accepted: longer than any run
    method: 'GET',
    url: `${PUBLIC_BASE_URL}/api/v1/conversations`,
    headers: { 'Signature-Agent': `sig1="${origin}"` },
  });
  const headers = Object.fromEntries(Object.entries(signed).map(([name, value]) => [name, String(value)]));
  // Valid for five minutes from the run that sends them: the service forgets each once it expires, so
  // the signed writes of a whole benchmark never fill the signatures it keeps (100,000 with no maximum).
  const signWrites = (count: number) => {
    const now = Math.floor(Date.now() / 1000) - 5;
    const params = `("@authority" "signature-agent";key="sig1");created=${now};expires=${now + 300}`;
    return Array.from({ length: count }, (): [string, string] => {
      const input = `${params};keyid="${key.keyid}";alg="ed25519";nonce="${randomUUID()}";tag="web-bot-auth"`;
      const base = [
        `"@authority": ${new URL(PUBLIC_BASE_URL).host}`,
        `"signature-agent";key="sig1": "${origin}"`,
        `"@signature-params": ${input}`,
      ].join('\n');
      return [`sig1=${input}`, `sig1=:${sign(null, Buffer.from(base), key.privateKey).toString('base64')}:`];
    });
  };
  return {
    env: { PUBLIC_BASE_URL, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' },
    headers,
    signWrites,
    stop: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/**
 * Has each process read the key directory before it is measured: the directory is served by this
 * process, whose event loop waits while wrk runs, and what is measured is a signed request with
 * its directory kept. The signature is judged before the missing credential, so the answer is 401.
 */
export async function primeKeyDirectory(servers: readonly { url: string }[], agent: BenchAgent): Promise<void> {
  const unknown = '00000000-0000-4000-8000-000000000000';
  for (const server of servers) {
    const response = await fetch(`${server.url}/api/v1/conversations/${unknown}`, { headers: agent.headers });
    const reason = ((await response.json()) as { error?: { reason?: string } }).error?.reason;
    if (reason !== 'no_credential') throw new Error(`the key directory was not read: ${response.status} ${reason}`);
  }
}
