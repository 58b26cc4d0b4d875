// What the owner sees of verified agents, through the owner script as a child process: every view
// spells the identity one way (`verified: http://agent.test:<port>`), says `contact:` once the owner
// trusts it and `(unverified)` for the unsigned, the notifier is told who wrote (CONTACT=1 for a
// contact), and `agents` lists them by site with their conversations. (Blocks: test/rules/blocks.test.ts.)
// Covers: src/owner/ (its views, agents, stats), src/rules/contacts.ts, src/runtime/notify.ts.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  newKey,
  request,
  runOwner,
  tempDir,
  waitUntil,
  type TestService,
} from '../helpers.ts';
import { startWatch } from '../owner-run.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from './agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';

async function open(service: TestService, signing?: Signing, headers: Record<string, string> = {}) {
  const signature = signing ? await signedHeaders(service, 'POST', OPEN, signing) : {};
  const json = { message: 'Hello, owner.', metadata: { agent_name: 'scout' } };
  const all = { ...headers, ...signature };
  const answer = await request(service.url, 'POST', OPEN, { key: newKey(), json, headers: all });
  return { ...answer, id: answer.body.id as string, token: answer.body.access_token as string };
}

async function followUp(service: TestService, opened: { id: string; token: string }, signing?: Signing) {
  const messages = `${OPEN}/${opened.id}/messages`;
  const headers = signing ? await signedHeaders(service, 'POST', messages, signing) : {};
  const json = { message: 'And another thing.' };
  return request(service.url, 'POST', messages, { token: opened.token, key: newKey(), json, headers });
}

async function owner(service: TestService, ...args: string[]) {
  const result = await runOwner(service.dbPath, args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

test('every view and the notifier say who is verified, in one spelling, and who is a contact', async (t) => {
  const dir = tempDir(t);
  const notifier = path.join(dir, 'notify.sh');
  const told = path.join(dir, 'told.txt');
  const line = '"$SENDER|$VERIFIED_AGENT|$CONTACT|$AGENT_NAME"';
  writeFileSync(notifier, `#!/bin/sh\necho ${line} >> "${told}"\n`, { mode: 0o755 });
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { dir, env: { NOTIFY_COMMAND: notifier } });
  const identity = directory.origin; // http://agent.test:<port>, everywhere
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching/);
  const signing = { key: KEY, agent: `http://AGENT.test:${new URL(identity).port}/` }; // spelled otherwise
  const verified = await open(service, signing);
  assert.equal(verified.body.verified_agent, identity, 'the opening says at once that its signature counted');
  assert.equal((await followUp(service, verified)).status, 201);
  await open(service);

  await watch.waitFor(new RegExp(`scout \\(verified: ${identity}\\)`));
  const inbox = await owner(service, 'inbox');
  assert.match(inbox, new RegExp(`${verified.id} .* scout \\(verified: ${identity}\\)`));
  assert.match(inbox, /scout \(unverified\)/);
  const shown = await owner(service, 'show', verified.id);
  assert.match(shown, new RegExp(`from +scout \\(verified: ${identity}\\)`));
  assert.match(shown, new RegExp(`#1 {2}client \\(verified: ${identity}\\)`));
  assert.match(shown, /#2 {2}client \(unverified\)/, 'an unsigned follow-up is shown unverified');
  const exported = JSON.parse((await owner(service, 'export', verified.id)).trim());
  assert.equal(exported.verified_agent, identity);
  assert.equal(exported.contact, false);
  assert.deepEqual(exported.messages.map((m: { verified_agent: unknown }) => m.verified_agent), [identity, null]);
  const agents = await owner(service, 'agents');
  assert.equal(
    agents,
    'site agent.test: 1 of 150 today as a stranger\n' +
      `  ${identity}  1 conversation (${verified.id.slice(0, 8)}), 1 message, last ` +
      `${agents.slice(agents.indexOf('last ') + 5, agents.indexOf(' UTC') + 4)}\n`,
  );

  assert.match(await owner(service, 'trust', verified.id), new RegExp(`^Trusted ${identity}: a contact now`));
  assert.equal((await followUp(service, verified, { key: KEY, agent: identity })).status, 201);
  await watch.waitFor(new RegExp(`scout \\(contact: ${identity}\\)`));
  assert.match(await owner(service, 'inbox'), new RegExp(`scout \\(contact: ${identity}\\)`));
  assert.match(await owner(service, 'show', verified.id), new RegExp(`#3 {2}client \\(contact: ${identity}\\)`));
  const rows = JSON.parse(await owner(service, 'inbox', '--json')) as { id: string; contact: boolean }[];
  assert.deepEqual(rows.map((row) => row.contact), rows.map((row) => row.id === verified.id));
  assert.match(await owner(service, 'agents'), new RegExp(`^  ${identity} \\(contact\\)`, 'm'));

  await waitUntil(() => readFileSync(told, 'utf8').trim().split('\n').length === 4, 'four notifications');
  assert.deepEqual(readFileSync(told, 'utf8').trim().split('\n'), [
    `scout (verified: ${identity})|${identity}||scout`,
    'scout (unverified)|||scout',
    'scout (unverified)|||scout',
    `scout (contact: ${identity})|${identity}|1|scout`,
  ]);
  await watch.interrupt();
});

test('stats fills in the shares a server of the previous release did not record', async (t) => {
  const service = await startVerifyingService(t);
  const recorded = JSON.parse(service.store.setting('quotas')!) as Record<string, number>;
  const { agentShare: _agent, unverifiedPool: _pool, verifiedPool: _verified, ...older } = recorded;
  service.store.transaction(() => service.store.recordSetting('quotas', JSON.stringify(older)));
  const stats = JSON.parse(await owner(service, 'stats', '--json'));
  assert.deepEqual(stats.busiest_site_today, { site: null, count: 0, share: 150 });
  assert.deepEqual(stats.verified_strangers_today, { count: 0, pool: 150 });
  assert.deepEqual(stats.unverified_today, { count: 0, pool: 150 });
  const printed = await owner(service, 'stats');
  assert.match(printed, /busiest site: 0 of its share of 150\n/);
  assert.match(printed, /verified agents you do not know, together: 0 of their pool of 150\n/);
  assert.match(printed, /unverified senders together: 0 of their pool of 150\n/);
});
