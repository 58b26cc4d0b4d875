// The README's commands, run exactly as written: the curl walkthrough (twice: it must be
// repeatable) and the owner's day, through the same `npm run -s owner --` the owner types.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/base/config.ts';
import { quotasOf } from '../../src/rules/quotas.ts';
import { Store } from '../../src/store/store.ts';
import { ROOT, runCommand, startTestService, tempDir } from '../helpers.ts';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The first ```sh block after a heading of the README. */
function shellBlock(heading: string): string {
  const section = README.slice(README.indexOf(`## ${heading}`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, `the README has a shell block under "${heading}"`);
  return block;
}

test("the README's curl walkthrough runs as written, twice, printing the statuses it promises", async (t) => {
  const service = await startTestService(t);
  const before = readdirSync(ROOT).sort();
  for (let run = 1; run <= 2; run++) {
    const { code, stdout, stderr } = await runCommand(
      'bash',
      ['-e', '-c', shellBlock('A whole conversation with curl')],
      { env: { BASE: `${service.url}/api/v1`, DB_PATH: service.dbPath } },
    );
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split('\n');
    const statuses = lines.filter((line) => line.startsWith('→ ')).map((line) => line.slice(2));
    assert.deepEqual(statuses, ['201', '201', '200', '200', '200', '200'], `run ${run}: ${stdout}`);
    const [opened, sent, retried, record, updates, read] = lines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    assert.match(opened.access_token, /^[0-9a-f]{64}$/);
    assert.deepEqual([sent.duplicate, sent.message.seq], [false, 2], `run ${run}`);
    assert.deepEqual(retried, { message: sent.message, duplicate: true }, `run ${run}: the retry is stored once`);
    assert.deepEqual([record.status, record.last_seq, record.latest_owner_seq], ['open', 2, 0]);
    assert.ok(lines.includes(`Replied to ${opened.id} as seq 3.`), 'the owner replied');
    assert.deepEqual([updates.status, updates.last_seq, updates.new_reply], ['answered', 3, true], `run ${run}`);
    assert.deepEqual(
      read.items.map((m: { author: string; message: string }) => [m.author, m.message]),
      [['owner', 'Welcome! You are listed now.']],
    );
  }
  assert.equal(service.store.conversationCounts().answered, 2, 'each run opened a conversation of its own');
  assert.deepEqual(readdirSync(ROOT).sort(), before, 'no credential file is left in the checkout');
});

test(
  "the owner's day in the README runs as written, with output that can be redirected and read back",
  { timeout: 120_000 },
  async (t) => {
    const service = await startTestService(t);
    const home = tempDir(t);
    seedReadmeConversations(service.dbPath);
    writeFileSync(path.join(home, 'reply.txt'), 'A longer reply,\nover two lines.\n');
    const commands = shellBlock("The owner's day")
      .split('\n')
      .filter((line) => line.startsWith('$ '))
      .map((line) => line.slice(2));
    assert.ok(commands.length >= 12);
    const outputs = new Map<string, string>();
    for (const command of commands.filter((line) => !/ watch\b/.test(line))) {
      const { code, stdout, stderr } = await runCommand('sh', ['-c', command], {
        env: { DB_PATH: service.dbPath, HOME: home },
      });
      assert.equal(code, 0, `${command}\n${stderr}`);
      assert.equal(stderr, '', command);
      outputs.set(command.split('#')[0]!.trim(), stdout);
    }
    assertOwnersViews(outputs);
    assertOwnersFiles(outputs, home);
  },
);

/** What the owner's day printed: the inbox, the agents, the reply, the stats. */
function assertOwnersViews(outputs: Map<string, string>): void {
  const inbox = outputs.get('npm run -s owner -- inbox') ?? '';
  assert.match(inbox, /^ASKING {2}7c3a9d10-5e2b-4f61-9a0c-2d8e4b6f1a37 {2}open .* client: "May I crawl your site/);
  assert.match(inbox, /\n {8}#1 reply by .* UTC \(in 3 h\): 1\. Tuesday {2}2\. Wednesday\n/);
  assert.match(inbox, /\nWAITING 4e55bee0-b78e-499b-b787-4ebd76d0ab30 {2}open .* scout \(unverified\) /);
  assert.match(inbox, /\n.*scout \(verified: https:\/\/scout\.example\)/);
  const agents = outputs.get('npm run -s owner -- agents') ?? '';
  assert.match(agents, /^site scout\.example: \d+ of 150 today as a stranger\n/);
  assert.match(agents, /\n {2}https:\/\/scout\.example \(contact\) {2}1 conversation \(91c2d7aa\)/);
  assert.equal(
    outputs.get('npm run -s owner -- reply 7c3a --choose 2'),
    'Replied to 7c3a9d10-5e2b-4f61-9a0c-2d8e4b6f1a37 as seq 2, choosing 2 (Wednesday) for question #1.\n',
  );
  assert.equal(
    outputs.get('npm run -s owner -- reply 4e55 "Thanks, your crawler is listed now."'),
    'Replied to 4e55bee0-b78e-499b-b787-4ebd76d0ab30 as seq 2.\n',
  );
  assert.match(
    outputs.get('npm run -s owner -- stats') ?? '',
    new RegExp(
      '^Today \\(\\d{4}-\\d\\d-\\d\\d UTC\\): \\d+ messages of 500 ' +
        '\\(the limits the server recorded when it started\\)\\n' +
        '  your replies: \\d+; 50 of the maximum are kept for them\\n' +
        '  busiest conversation: \\d+ of its share of 50.*\\n  busiest address: \\d+ of its share of 100\\n' +
        '  busiest site: \\d+ of its share of 150.*\\n' +
        '  verified agents you do not know, together: \\d+ of their pool of 150\\n' +
        '  unverified senders together: \\d+ of their pool of 150\\n' +
        'Conversations: 0 open, 2 answered, 0 closed; 1 blocked\\n',
    ),
  );
}

/** What the owner's day wrote: the archive, the listings read back, the backup. */
function assertOwnersFiles(outputs: Map<string, string>, home: string): void {
  const archive = readFileSync(path.join(home, 'agent-contact-archive.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(archive.map((c: { id: string }) => c.id).sort(), [
    '4e55bee0-b78e-499b-b787-4ebd76d0ab30',
    '7c3a9d10-5e2b-4f61-9a0c-2d8e4b6f1a37',
    '91c2d7aa-0c1f-4f8e-a7f6-3b0e4d6a1c55',
  ]);
  const asked = archive.find((c: { id: string }) => c.id.startsWith('7c3a'));
  assert.deepEqual(asked.messages.at(-1).choice, { for_seq: 1, index: 1, text: 'Wednesday' });
  assert.equal(
    archive.find((c: { id: string }) => c.id.startsWith('4e55')).messages.at(-1).message,
    'A longer reply,\nover two lines.',
  );
  assert.match(
    outputs.get('npm run -s owner -- listings stale') ?? '',
    new RegExp(
      '^(All \\d+ listings were read against their documentation in the last 90 days|' +
        '\\d+ of \\d+ listings were last read against their documentation before)',
    ),
  );
  const exported = JSON.parse(readFileSync(path.join(home, 'listings.json'), 'utf8')) as unknown[];
  assert.equal(
    outputs.get('npm run -s owner -- listings import ~/listings.json'),
    `Imported ${exported.length} listings: 0 new, 0 changed, ${exported.length} unchanged.\n`,
  );
  assert.equal(
    readdirSync(home).filter((name) => /^agent-contact-\d{4}-\d\d-\d\d\.db$/.test(name)).length,
    1,
    'the backup was written',
  );
  assert.ok(!existsSync(path.join(ROOT, 'listings.json')));
}

/** The three conversations the README's owner's day shows, with their ids; the third asks a question. */
function seedReadmeConversations(dbPath: string): void {
  const store = new Store(dbPath);
  const at = new Date().toISOString();
  const conversation = (id: string, lastSeq: number, ownerSeq: number) => ({
    id,
    status: (ownerSeq === lastSeq ? 'answered' : 'open') as 'open' | 'answered',
    blocked: 0 as const,
    metadata: '{"agent_name":"scout"}',
    created_at: at,
    expires_at: '2099-01-01T00:00:00.000Z',
    last_seq: lastSeq,
    latest_owner_seq: ownerSeq,
    changed_at: at,
    // The second was opened by a verified agent, as the README's inbox shows.
    verified_agent: id.startsWith('91c2') ? 'https://scout.example' : null,
    sender: id.startsWith('91c2') ? 'agent:https://scout.example' : `address:${id.slice(0, 8)}`,
    blocked_by: null,
    closed_by: null,
  });
  store.transaction(() => {
    for (const [id, lastSeq, ownerSeq] of [
      ['4e55bee0-b78e-499b-b787-4ebd76d0ab30', 1, 0],
      ['91c2d7aa-0c1f-4f8e-a7f6-3b0e4d6a1c55', 4, 4],
    ] as const) {
      store.insertConversation(conversation(id, lastSeq, ownerSeq), id.replaceAll('-', '').repeat(2), `readme-${id}`);
      for (let seq = 1; seq <= lastSeq; seq++) {
        const client = seq % 2 === 1;
        const verified = client && id.startsWith('91c2');
        store.insertMessage(
          id,
          {
            seq,
            author: client ? 'client' : 'owner',
            message: `message ${seq}`,
            created_at: at,
            verified_agent: verified ? 'https://scout.example' : null,
          },
          null,
          client ? (verified ? 'agent:https://scout.example' : `address:${id.slice(0, 8)}`) : null,
        );
      }
    }
    const asking = '7c3a9d10-5e2b-4f61-9a0c-2d8e4b6f1a37';
    store.insertConversation(conversation(asking, 1, 0), asking.replaceAll('-', '').repeat(2), `readme-${asking}`);
    const question = {
      seq: 1,
      author: 'client' as const,
      message: 'May I crawl your site on Tuesday or Wednesday?',
      created_at: at,
      verified_agent: null,
      choices: JSON.stringify(['Tuesday', 'Wednesday']),
      reply_by: new Date(Date.now() + 3 * 3_600_000 + 5 * 60_000).toISOString(),
    };
    store.insertMessage(asking, question, null, `address:${asking.slice(0, 8)}`);
  });
  store.close();
}

test('the README and docs/ stand alone: every link is a file of the repository, and the size of src/ is true', () => {
  const documents = [
    'README.md',
    'CHANGELOG.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  for (const document of documents) {
    const text = readFileSync(path.join(ROOT, document), 'utf8');
    assert.doesNotMatch(text, /\.\.\/shared|the spec's|the contract's/, `${document} points outside the repository`);
    for (const [, target] of text.matchAll(/\]\(((?!https?:|#|mailto:)[^)#\s]+)(#[^)]*)?\)/g)) {
      const file = path.join(ROOT, path.dirname(document), target as string);
      assert.ok(existsSync(file), `${document} links to ${target}, which does not exist`);
    }
  }
  const stated = Number(
    /all\s+of\s+it\s+in\s+`src\/`\s+\(about\s+([\d,]+)\s+lines\)/.exec(README)?.[1]?.replace(',', ''),
  );
  const sources = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(path.join(ROOT, 'src', name), 'utf8').split('\n').length - 1);
  const actual = sources.reduce((sum, lines) => sum + lines, 0);
  assert.ok(Math.abs(actual - stated) / actual < 0.1, `the README says about ${stated} lines; src/ has ${actual}`);
});

test("the README's limits are the defaults the service enforces", () => {
  const config = loadConfig({});
  const quotas = quotasOf(config);
  const text = README.replace(/\s+/g, ' ');
  const stated =
    `${config.dailyMessageLimit} messages a UTC day for everyone together, of which one conversation may store ` +
    `${config.dailyConversationShare} and one address ${config.dailyAddressShare}, unsigned senders together ` +
    `${quotas.unverifiedPool}, verified agents the owner does not know yet together ${quotas.verifiedPool} (one ` +
    `site of them ${quotas.siteShare}), and ${config.dailyOwnerReserve} are kept for the owner's replies, so the ` +
    `agents the owner trusts always have room; ${config.createLimitPerHour} openings per address an hour`;
  assert.ok(text.includes(stated), `the README says: ${stated}`);
  assert.equal(config.pollIntervalSeconds, 60, 'a poll once a minute');
});

test('the README names HOST and PORT beside its two commands, with their defaults', () => {
  const { host, port } = loadConfig({});
  const text = README.replace(/\s+/g, ' ');
  const commands = text.indexOf('npm install && npm start');
  const named = text.indexOf(`\`npm start\` listens on \`HOST\` ${host} and \`PORT\` ${port}:`);
  assert.ok(named > commands && commands > 0 && named - commands < 300, 'right after the commands');
});
