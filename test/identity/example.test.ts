// The signing example of docs/verified-agents.md, run as written: `keys` makes the key and prints the
// JWK Set to publish, which a key directory then serves; `open` opens a conversation, verified.
// Covers: src/identity/, src/runtime/verified-agents.ts, through REST.

import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, runCommand, tempDir } from '../helpers.ts';
import { startKeyDirectory, startVerifyingService } from './agents.ts';

/** The js block of the document that starts with the script's name. */
function example(): string {
  const text = readFileSync(path.join(ROOT, 'docs/verified-agents.md'), 'utf8');
  const block = /```js\n(\/\/ sign-and-open\.mjs[^]*?)```/.exec(text)?.[1];
  assert.ok(block, 'docs/verified-agents.md holds the example');
  return block;
}

test('the signing example of docs/verified-agents.md opens a verified conversation, as written', async (t) => {
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'sign-and-open.mjs'), example());
  const node = (args: string[], env: Record<string, string> = {}) =>
    runCommand(process.execPath, ['sign-and-open.mjs', ...args], { cwd: dir, env });

  const keys = await node(['keys']);
  assert.equal(keys.code, 0, keys.stderr);
  assert.equal(statSync(path.join(dir, 'agent-key.json')).mode & 0o777, 0o600, 'the private key is private');
  const published = keys.stdout.trim();
  assert.deepEqual(Object.keys(JSON.parse(published).keys[0]), ['kty', 'crv', 'x'], 'only the public half');

  const directory = await startKeyDirectory(t, []);
  directory.answer = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(published);
  const service = await startVerifyingService(t);
  const env = { SERVICE: service.url, SIGNATURE_AGENT: directory.origin };
  const opened = await node(['open', 'Hello from the guide.'], env);
  assert.equal(opened.code, 0, opened.stderr);
  assert.match(opened.stdout, /^Opened [0-9a-f-]{36} with credential [0-9a-f]{64}\n/);
  assert.match(opened.stdout, new RegExp(`\\nverified_agent: ${directory.origin}\\n$`));
  assert.deepEqual(directory.fetched, ['/.well-known/http-message-signatures-directory']);
  const stored = service.store.newestMessages(/Opened ([0-9a-f-]{36})/.exec(opened.stdout)![1]!, 1);
  assert.equal(stored[0]?.message, 'Hello from the guide.');
});
