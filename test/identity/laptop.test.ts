// The "Test it on your laptop" steps of docs/verified-agents.md, run as written on free ports in place of
// 8080 and 9000: the service as `npm start` runs it, allowed to read the key directory serve-keys.mjs
// serves over http; then sign-and-open.mjs and the MCP and A2A SDK examples (through signed-fetch.mjs),
// with the official SDKs, each opening and following up verified.
// Covers: src/identity/, src/runtime/verified-agents.ts, through REST, MCP and A2A.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { ROOT, runCommand, startServerProcess, tempDir, waitUntil } from '../helpers.ts';

const GUIDE = readFileSync(path.join(ROOT, 'docs/verified-agents.md'), 'utf8');
const SCRIPTS = ['sign-and-open.mjs', 'signed-fetch.mjs', 'open-over-mcp.mjs', 'open-over-a2a.mjs', 'serve-keys.mjs'];
// `node` in the steps is this Node, whatever else is on the PATH.
const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;

/** The js block of the guide that starts with the script's name. */
function script(name: string): string {
  const block = new RegExp(`\`\`\`js\\n(// ${name.replace('.', '\\.')}[^]*?)\`\`\``).exec(GUIDE)?.[1];
  assert.ok(block, `docs/verified-agents.md holds ${name}`);
  return block;
}

/** The commands of the section's shell block, without comments or blank lines. */
function steps(): string[] {
  const block = /### Test it on your laptop\n[^]*?```sh\n([^]*?)```/.exec(GUIDE)?.[1];
  assert.ok(block, 'docs/verified-agents.md shows the steps');
  return block.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

/** serve-keys.mjs, left running as the guide says, on a free port: its key directory's origin. */
async function serveKeys(t: TestContext, dir: string): Promise<string> {
  const child = spawn(process.execPath, ['serve-keys.mjs'], {
    cwd: dir,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill());
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await waitUntil(() => /^Your key directory: /m.test(output), `serve-keys.mjs started: ${output}`);
  return /^Your key directory: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output)?.[1] as string;
}

test('the laptop steps of docs/verified-agents.md verify the script and both SDKs, as written', async (t) => {
  const [start, keys, serve, ...opens] = steps();
  assert.equal(start, 'OUTBOUND_ALLOWED_HOSTS=127.0.0.1:9000 npm start', 'the README: 8080 serves, 9000 receives');
  assert.deepEqual([keys, serve], ['node sign-and-open.mjs keys', 'node serve-keys.mjs']);
  assert.match(script('serve-keys.mjs'), /process\.env\.PORT \?\? 9000\b/, 'it serves on the port allowed');
  const dir = tempDir(t);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  for (const name of SCRIPTS) writeFileSync(path.join(dir, name), script(name));
  const shell = (line: string) => runCommand('sh', ['-c', line], { cwd: dir, env: { PATH }, timeoutMs: 30_000 });

  assert.equal((await shell(keys!)).code, 0);
  const keysOrigin = await serveKeys(t, dir);
  const allowed = keysOrigin.replace('http://', '');
  const service = await startServerProcess(t, {
    OUTBOUND_ALLOWED_HOSTS: /^OUTBOUND_ALLOWED_HOSTS=(\S+) /.exec(start!)![1]!.replace('127.0.0.1:9000', allowed),
    DB_PATH: path.join(dir, 'service.db'),
  });
  const onFreePorts = (line: string) =>
    line.replaceAll('http://127.0.0.1:8080', service.url).replaceAll('http://127.0.0.1:9000', keysOrigin);

  assert.deepEqual(opens.map((line) => line.replace(/ node .*/, '')), Array(3).fill(
    'SERVICE=http://127.0.0.1:8080 SIGNATURE_AGENT=http://127.0.0.1:9000',
  ));
  const [signed, mcp, a2a] = await Promise.all(opens.map((line) => shell(onFreePorts(line))));
  for (const run of [signed, mcp, a2a]) assert.equal(run!.code, 0, run!.stderr);
  assert.match(signed!.stdout, new RegExp(`\\nverified_agent: ${keysOrigin}\\n$`));
  const verified = (name: string) =>
    `^Opened [0-9a-f-]{36}: ${name} ${keysOrigin}\nSent seq 2: ${name} ${keysOrigin}\n$`;
  assert.match(mcp!.stdout, new RegExp(verified('verified_agent')));
  assert.match(a2a!.stdout, new RegExp(verified('verifiedAgent')));

  // A key directory over http on a port the service was not allowed is a mistake to fix: 400, naming https.
  const notAllowed = await shell(onFreePorts(opens[0]!).replace(keysOrigin, 'http://127.0.0.1:1'));
  assert.match(notAllowed.stderr, /400 signature_malformed: .*must use https/);
});
