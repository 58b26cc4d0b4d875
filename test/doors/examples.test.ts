// The whole-conversation examples of docs/a2a.md and docs/mcp.md, run as written with the official
// SDKs, against a real server: each opens, follows up, waits, and prints the reply the owner wrote
// with the owner script. And the question rounds of docs/api.md, docs/mcp.md and docs/a2a.md: each
// asks with choices and a deadline, waits, and acts on the choice the owner made with --choose.
// Covers: src/doors/mcp/, src/doors/a2a/, src/rules/conversations.ts, src/rules/questions.ts.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { ROOT, runOwner, startTestService, tempDir, waitUntil } from '../helpers.ts';

/** The example of a document: its js block that starts with the file's name. */
function example(document: string, name = 'contact-the-owner.mjs'): string {
  const text = readFileSync(path.join(ROOT, document), 'utf8');
  const block = new RegExp(`\`\`\`js\\n(// ${name.replace('.', '\\.')}[^]*?)\`\`\``).exec(text)?.[1];
  assert.ok(block, `${document} holds the example ${name}`);
  return block;
}

/** Runs the example as its reader would (node contact-the-owner.mjs), the project's packages installed beside it. */
function runExample(t: TestContext, code: string, baseUrl: string) {
  const dir = tempDir(t);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'contact-the-owner.mjs'), code);
  const child = spawn(process.execPath, ['contact-the-owner.mjs'], {
    cwd: dir,
    env: { ...process.env, BASE_URL: baseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill());
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { output: () => output, exited };
}

for (const [door, document] of [
  ['A2A', 'docs/a2a.md'],
  ['MCP', 'docs/mcp.md'],
] as const) {
  test(`${door}: the example of ${document} holds a whole conversation, as written`, async (t) => {
    // A poll interval of 1 s: the A2A example checks once per pollAfterSeconds.
    const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '1' } });
    const run = runExample(t, example(document), service.url);
    await waitUntil(() => /^Opened [0-9a-f-]{36}$/m.test(run.output()), `the example opened: ${run.output()}`);
    const id = /^Opened ([0-9a-f-]{36})$/m.exec(run.output())?.[1] as string;
    await waitUntil(() => service.store.conversationById(id)?.last_seq === 2, 'and followed up');
    assert.equal((await runOwner(service.dbPath, ['reply', id, 'Listed, welcome!'])).code, 0);
    assert.equal(await run.exited, 0, run.output());
    assert.match(run.output(), /^The owner: Listed, welcome!$/m);
    assert.equal(service.store.conversationById(id)?.last_seq, 3);
  });
}

for (const [door, document] of [
  ['REST', 'docs/api.md'],
  ['MCP', 'docs/mcp.md'],
  ['A2A', 'docs/a2a.md'],
] as const) {
  test(`${door}: the question round of ${document} acts on the owner's choice, as written`, async (t) => {
    const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '1' } });
    const run = runExample(t, example(document, 'ask-the-owner.mjs'), service.url);
    await waitUntil(() => /^Asked [0-9a-f-]{36}$/m.test(run.output()), `the example asked: ${run.output()}`);
    const id = /^Asked ([0-9a-f-]{36})$/m.exec(run.output())?.[1] as string;
    const inbox = await runOwner(service.dbPath, ['inbox']);
    const choices = /\(in 2 h\): 1\. Tuesday {2}2\. Wednesday {2}3\. Not at all/;
    assert.match(inbox.stdout, choices, 'the owner sees the choices, numbered');
    assert.equal((await runOwner(service.dbPath, ['reply', id, '--choose', '2'])).code, 0);
    assert.equal(await run.exited, 0, run.output());
    assert.match(run.output(), /^The owner chose: Wednesday$/m);
  });
}
