// The key directories' tests' fake fetcher and keys (test/identity/key-directory*.test.ts).

import assert from 'node:assert/strict';
import {
  KeyDirectories,
  type KeyDirectoryAnswer,
  type KeyDirectoriesOptions,
  type KeyLookup,
} from '../../src/identity/key-directory.ts';
import { agentKey, type AgentKey } from './signing.ts';

export const DIRECTORY = 'https://agent.example/.well-known/http-message-signatures-directory';
export const OTHER_DIRECTORY = 'https://other.example/.well-known/http-message-signatures-directory';
export const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
export const SECOND = 1000;
export const [A, B, C] = [agentKey(), agentKey(), agentKey()];

export const publicJwk = (key: AgentKey) => ({ kty: 'OKP', crv: 'Ed25519', x: key.jwk.x });

export function jwkSet(keys: unknown[], cacheControl?: string): KeyDirectoryAnswer {
  const headers = cacheControl === undefined ? {} : { 'cache-control': cacheControl };
  return { status: 200, headers, body: Buffer.from(JSON.stringify({ keys })) };
}

type Respond = (url: URL, call: number) => KeyDirectoryAnswer | Error | Promise<KeyDirectoryAnswer>;

/** Directories over a fake fetcher that records each URL it is asked for. */
export function directories(respond: Respond, options: Partial<KeyDirectoriesOptions> = {}) {
  const calls: string[] = [];
  const fetchKeyDirectory = async (url: URL) => {
    calls.push(url.href);
    const answer = await respond(url, calls.length);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { calls, keys: new KeyDirectories({ fetchKeyDirectory, ...options }) };
}

export function keyOf(lookup: KeyLookup) {
  assert.equal(lookup.kind, 'key', JSON.stringify(lookup));
  return (lookup as { key: { export(o: { format: 'jwk' }): unknown } }).key.export({ format: 'jwk' });
}

