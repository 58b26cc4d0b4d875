// The owner's contacts (src/rules/contacts.ts), through the owner script as a child process: `trust`
// makes the verified agent of a conversation, or every agent of a site, a contact, whose messages count
// against no pool and no site share; `untrust` ends it. An unsigned opening has no one to trust.
// (How contacts write through a flood: test/identity/limits.test.ts; how views show them:
// test/identity/owner.test.ts.)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newKey, request, runOwner, type TestService } from '../helpers.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from '../identity/agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';

async function open(service: TestService, signing?: Signing) {
  const headers = signing ? await signedHeaders(service, 'POST', OPEN, signing) : {};
  return request(service.url, 'POST', OPEN, { key: newKey(), json: { message: 'Hello.' }, headers });
}

test('trust and untrust, by conversation and by site, each said once; mistakes exit 1 saying why', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { env: { DAILY_SITE_SHARE: '2' } });
  const run = (...args: string[]) => runOwner(service.dbPath, args);
  const signing = { key: KEY, agent: directory.origin };
  const verified = await open(service, signing);
  const unsigned = await open(service);

  const refused = await run('trust', unsigned.body.id);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: conversation .* was opened unsigned, so there is no verified agent to trust/);
  assert.equal(
    (await run('trust', verified.body.id)).stdout,
    `Trusted ${directory.origin}: a contact now; its messages count against no pool and no site's share.\n`,
  );
  assert.equal((await run('trust', verified.body.id)).stdout, `${directory.origin} is already a contact.\n`);
  for (let i = 0; i < 3; i++) assert.equal((await open(service, signing)).status, 201, 'past the site share of 2');

  assert.equal((await run('untrust', verified.body.id)).stdout, `${directory.origin} is no longer a contact.\n`);
  assert.equal((await open(service, signing)).status, 201, 'a stranger again: its second of 2');
  assert.equal((await open(service, signing)).body?.error.reason, 'agent_share');
  const again = await run('untrust', verified.body.id);
  assert.deepEqual([again.code, again.stderr], [1, `error: ${directory.origin} is not a contact\n`]);

  assert.equal((await run('trust', '--site', 'agent.test')).code, 0);
  assert.equal((await open(service, signing)).status, 201, 'a site contact covers its identities');
  assert.equal((await run('untrust', '--site', 'agent.test')).stdout, 'the site agent.test is no longer a contact.\n');
  const bad = await run('trust', '--site', 'https://agent.test/');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /is not a site: give a registrable domain such as agent\.example/);
  const both = await run('trust', verified.body.id, '--site', 'agent.test');
  assert.match(both.stderr, /give an id or --site, not both/);
});
