// `npm run bench [-- --smoke] [-- --scale]`: the service against a bare node:http
// reference that sends precomputed bytes of the same sizes, both driven by wrk in the same
// run, each pinned to one core when taskset is there. Writes nothing into the repository.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { seedDatabase } from './seed.ts';
import { measureWaits } from './waits.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const { values: options } = parseArgs({
  // --only <text>: just the scenarios whose name contains it, for a quick look at one change
  options: {
    smoke: { type: 'boolean' },
    scale: { type: 'boolean' },
    seconds: { type: 'string' },
    only: { type: 'string' },
  },
});
const SECONDS = Number(options.seconds ?? (options.smoke ? 1 : 10));
// Each comparison alternates the two servers over several short rounds (A B, B A, ...) and
// takes the median of the rounds' ratios: a slow spell of a shared machine then falls on
// both sides, and a single unlucky round does not decide the figure.
const ROUNDS = Math.max(1, Math.min(5, Math.floor(SECONDS / 2)));
const ROUND_SECONDS = Math.max(1, Math.round(SECONDS / ROUNDS));
// Unmeasured load on each server before its first round: a server that just started is
// still compiling its hot paths, which is start-up, measured on its own, not throughput.
const WARMUP_SECONDS = options.smoke ? 0 : 2;
const CONNECTIONS = 32;
const SCALE_CONVERSATIONS = options.smoke ? 10_000 : 100_000;
const SCALE_MESSAGES_EACH = 10;
const LIFTED_LIMITS = {
  DAILY_MESSAGE_LIMIT: '0',
  CREATE_LIMIT_PER_HOUR: '0',
  REQUEST_LIMIT_PER_MINUTE: '0',
  POLL_INTERVAL_SECONDS: '0',
};

const work = mkdtempSync(path.join(tmpdir(), 'contact-service-bench-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is not installed. On Debian or Ubuntu: sudo apt-get install wrk');
  process.exit(1);
}
const canPin = !spawnSync('taskset', ['-c', '0', 'true']).error;

/**
 * Both servers are launched exactly as `npm start` launches the service: the same
 * environment assignments and Node flags, read from package.json, so that the ratio
 * compares the application code and nothing else.
 */
function startCommand(): { env: Record<string, string>; nodeArgs: string[] } {
  const words = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0]?.includes('=')) {
    const [name, value] = (words.shift() as string).split('=') as [string, string];
    env[name] = value;
  }
  if (words.shift() !== 'node') throw new Error('npm start is expected to run node');
  return { env, nodeArgs: words.slice(0, -1) }; // the last word is the script
}
const launch = startCommand();
const pinned = (core: number, command: string[]) => (canPin ? ['taskset', '-c', String(core), ...command] : command);

interface Server {
  readonly url: string;
  readonly child: ChildProcess;
  readonly startupMs: number;
  peakRssKb(): number;
  /** user + system CPU time consumed so far, in ms */
  cpuMs(): number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts a server on core 0 and measures the time to its first 200 from /health (or /). */
async function startServer(script: string, env: Record<string, string>, readyPath: string): Promise<Server> {
  const port = await freePort();
  const [command, ...args] = pinned(0, [process.execPath, ...launch.nodeArgs, script]) as [string, ...string[]];
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...launch.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(url + readyPath)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (performance.now() - started > 10_000) throw new Error(`${script} did not answer ${readyPath} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const startupMs = performance.now() - started;
  return {
    url,
    child,
    startupMs,
    peakRssKb: () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0),
    cpuMs: () => {
      // utime and stime are fields 14 and 15, in clock ticks of 10 ms; taskset execs node, so the pid is node's
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface Scenario {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** a new Idempotency-Key per request */
  readonly uniqueKey?: boolean;
  readonly expectStatus: number;
  /** which service instance answers it */
  readonly server: 'main' | 'limited';
  /**
   * The figure to stay above: the usual Node stack's (Fastify + better-sqlite3) req/s ÷ the
   * reference's, as measured beside this service on 2026-11-24 (issue 21); 0 = reported only.
   */
  readonly target: number;
  /** a protocol door's REST twin, whose CPU per request it may exceed by half at most */
  readonly twin?: string;
  /** where the per-request unique key goes: the Idempotency-Key header, or the body's {{KEY}} */
  readonly keyIn?: 'header' | 'body';
}

function luaScript(scenario: Scenario): string {
  const lines = [`wrk.method = "${scenario.method}"`];
  for (const [name, value] of Object.entries(scenario.headers)) lines.push(`wrk.headers["${name}"] = "${value}"`);
  if (scenario.body) lines.push(`wrk.body = '${scenario.body}'`);
  if (scenario.uniqueKey) {
    const inBody = scenario.keyIn === 'body';
    lines.push(
      'local counter = 0',
      'math.randomseed(os.time())',
      'local prefix = "bench-" .. os.time() .. "-" .. math.random(1, 1000000000) .. "-"',
      'request = function()',
      '  counter = counter + 1',
      inBody ? '  local body = string.gsub(wrk.body, "{{KEY}}", prefix .. counter)' : '  local body = nil',
      inBody ? '' : '  wrk.headers["Idempotency-Key"] = prefix .. counter',
      `  return wrk.format(nil, "${scenario.path}", nil, body)`,
      'end',
    );
  }
  return lines.join('\n');
}

interface Measurement {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** the server's CPU time per answered request, in µs: steadier than req/s on a shared machine */
  readonly cpuUs: number;
  readonly unexpected: number;
}

function toMs(value: string, unit: string): number {
  return Number(value) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;
}

function runWrk(server: Server, scenario: Scenario, seconds: number): Measurement {
  const script = path.join(work, `${scenario.name.replace(/\W+/g, '-')}.lua`);
  writeFileSync(script, luaScript(scenario));
  const [command, ...args] = pinned(1, [
    'wrk',
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    script,
    server.url + scenario.path,
  ]) as [string, ...string[]];
  const cpuBefore = server.cpuMs();
  const result = spawnSync(command, args, { encoding: 'utf8' });
  const cpuMs = server.cpuMs() - cpuBefore;
  const output = result.stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0);
  const p50 = /50%\s+([\d.]+)(us|ms|s)/.exec(output);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(output);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const total = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const unexpected = scenario.expectStatus < 300 ? non2xx : total - non2xx;
  return {
    rps,
    p50: p50 ? toMs(p50[1]!, p50[2]!) : NaN,
    p99: p99 ? toMs(p99[1]!, p99[2]!) : NaN,
    cpuUs: (cpuMs * 1000) / total,
    unexpected,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One server's rounds as one figure: mean req/s and CPU, median latencies. */
function combined(rounds: Measurement[]): Measurement {
  const mean = (pick: (m: Measurement) => number) => rounds.reduce((sum, m) => sum + pick(m), 0) / rounds.length;
  return {
    rps: mean((m) => m.rps),
    p50: median(rounds.map((m) => m.p50)),
    p99: median(rounds.map((m) => m.p99)),
    cpuUs: mean((m) => m.cpuUs),
    unexpected: rounds.reduce((sum, m) => sum + m.unexpected, 0),
  };
}

interface Comparison {
  readonly base: Measurement;
  readonly other: Measurement;
  /** median over the rounds of other req/s ÷ base req/s */
  readonly ratio: number;
  /** median over the rounds of base CPU per request ÷ other's */
  readonly cpuRatio: number;
}

/** Runs a scenario on two servers in alternating rounds. */
function compare(base: Server, baseScenario: Scenario, other: Server, otherScenario: Scenario): Comparison {
  if (WARMUP_SECONDS > 0) {
    runWrk(base, baseScenario, WARMUP_SECONDS);
    runWrk(other, otherScenario, WARMUP_SECONDS);
  }
  const baseRounds: Measurement[] = [];
  const otherRounds: Measurement[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      baseRounds.push(runWrk(base, baseScenario, ROUND_SECONDS));
      otherRounds.push(runWrk(other, otherScenario, ROUND_SECONDS));
    } else {
      otherRounds.push(runWrk(other, otherScenario, ROUND_SECONDS));
      baseRounds.push(runWrk(base, baseScenario, ROUND_SECONDS));
    }
  }
  return {
    base: combined(baseRounds),
    other: combined(otherRounds),
    ratio: median(baseRounds.map((b, i) => otherRounds[i]!.rps / b.rps)),
    cpuRatio: median(baseRounds.map((b, i) => b.cpuUs / otherRounds[i]!.cpuUs)),
  };
}

async function sample(
  baseUrl: string,
  scenario: Scenario,
  key = `bench-sample-${Math.random().toString(36).slice(2)}`,
) {
  const headers: Record<string, string> = {
    ...scenario.headers,
    ...(scenario.uniqueKey ? { 'idempotency-key': key } : {}),
  };
  const sent = scenario.body?.replace('{{KEY}}', key);
  const response = await fetch(baseUrl + scenario.path, { method: scenario.method, headers, body: sent });
  const body = await response.text();
  if (response.status !== scenario.expectStatus)
    throw new Error(`${scenario.name}: expected ${scenario.expectStatus}, got ${response.status} ${body}`);
  const kept = [
    'content-type',
    'cache-control',
    'retry-after',
    'www-authenticate',
    'access-control-allow-origin',
    'x-request-id',
    'access-control-expose-headers',
    'x-content-type-options',
  ];
  return {
    status: response.status,
    headers: Object.fromEntries(
      kept.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)!]] : [])),
    ),
    body,
  };
}

/** Opens a conversation on a service and returns its id and credential. */
async function openConversation(baseUrl: string) {
  const response = await fetch(`${baseUrl}/api/v1/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `bench-open-${Date.now()}-${Math.random()}` },
    body: JSON.stringify({ message: 'Benchmark conversation.', metadata: { agent_name: 'bench' } }),
  });
  const body = (await response.json()) as { id: string; access_token: string };
  return { id: body.id, token: body.access_token };
}

/** The search term whose matches are nearest to 10% of the listings. */
async function tenPercentQuery(baseUrl: string): Promise<string> {
  const total = ((await (await fetch(`${baseUrl}/api/v1/directory?limit=1`)).json()) as { total: number }).total;
  let best = { q: 'api', distance: Infinity };
  for (const q of [
    'api',
    'open',
    'weather',
    'research',
    'social',
    'data',
    'maps',
    'search',
    'science',
    'chat',
    'forum',
    'python',
  ]) {
    const found = ((await (await fetch(`${baseUrl}/api/v1/directory?q=${q}&limit=1`)).json()) as { total: number })
      .total;
    const distance = Math.abs(found / total - 0.1);
    if (distance < best.distance) best = { q, distance };
  }
  return best.q;
}

/** `capped`: a conversation of the limited service; opening one uses its one message of the day. */
async function scenariosFor(main: Server, capped: { id: string; token: string }): Promise<Scenario[]> {
  const conversation = await openConversation(main.url);
  const q = await tenPercentQuery(main.url);
  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const json = { 'Content-Type': 'application/json' };
  return [
    {
      name: 'directory page (limit 30)',
      method: 'GET',
      path: '/api/v1/directory?limit=30',
      headers: {},
      expectStatus: 200,
      server: 'main',
      target: 0.11,
    },
    {
      name: `directory search (q=${q})`,
      method: 'GET',
      path: `/api/v1/directory?q=${q}`,
      headers: {},
      expectStatus: 200,
      server: 'main',
      target: 0.1,
    },
    {
      name: 'one listing',
      method: 'GET',
      path: '/api/v1/directory/open-meteo',
      headers: {},
      expectStatus: 200,
      server: 'main',
      target: 0.5,
    },
    {
      name: 'updates poll',
      method: 'GET',
      path: `/api/v1/conversations/${conversation.id}/updates?after=1`,
      headers: auth(conversation.token),
      expectStatus: 200,
      server: 'main',
      target: 0.55,
    },
    {
      name: 'follow-up POST (sync FULL)',
      method: 'POST',
      path: `/api/v1/conversations/${conversation.id}/messages`,
      headers: { ...auth(conversation.token), ...json },
      body: '{"message":"A benchmark follow-up message."}',
      uniqueKey: true,
      expectStatus: 201,
      server: 'main',
      target: 0.14,
    },
    {
      name: 'refused: unknown credential (401)',
      method: 'GET',
      path: `/api/v1/conversations/${conversation.id}/updates`,
      headers: auth('f'.repeat(64)),
      expectStatus: 401,
      server: 'main',
      target: 0,
    },
    {
      name: 'refused: daily maximum (429)',
      method: 'POST',
      path: `/api/v1/conversations/${capped.id}/messages`,
      headers: { ...auth(capped.token), ...json },
      body: '{"message":"Over the daily maximum."}',
      uniqueKey: true,
      expectStatus: 429,
      server: 'limited',
      target: 0,
    },
    // The MCP twins of the poll and the search; the query only tells the reference's canned answers apart.
    {
      name: 'MCP tools/call check_updates',
      method: 'POST',
      path: '/mcp?scenario=check_updates',
      headers: json,
      body: toolCall('check_updates', { conversation_id: conversation.id, access_token: conversation.token, after: 1 }),
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'updates poll',
    },
    {
      name: `MCP tools/call search_directory`,
      method: 'POST',
      path: '/mcp?scenario=search_directory',
      headers: json,
      body: toolCall('search_directory', { q, limit: 30 }),
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'directory search',
    },
    // The A2A twins of the poll and the follow-up, over JSON-RPC.
    {
      name: 'A2A GetTask',
      method: 'POST',
      path: '/a2a?scenario=get_task',
      headers: { ...json, ...auth(conversation.token), 'A2A-Version': '1.0' },
      body: a2aCall('GetTask', { id: conversation.id, historyLength: 0 }),
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'updates poll',
    },
    {
      name: 'A2A SendMessage (follow-up)',
      method: 'POST',
      path: '/a2a?scenario=send_message',
      headers: { ...json, ...auth(conversation.token), 'A2A-Version': '1.0' },
      body: a2aCall('SendMessage', {
        message: { messageId: '{{KEY}}', role: 'ROLE_USER', parts: [{ text: 'A benchmark follow-up message.' }] },
        configuration: { historyLength: 0 },
      }),
      uniqueKey: true,
      keyIn: 'body',
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'follow-up POST',
    },
  ];
}

const a2aCall = (method: string, params: object) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

const toolCall = (name: string, args: object) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const TWIN_CPU_TARGET = 1.5; // a protocol door's CPU per request, at most, against its REST twin's

// --only a,b: the scenarios whose names contain any of the comma-separated parts
const chosen = (scenarios: Scenario[]) =>
  scenarios.filter((scenario) => (options.only ?? '').split(',').some((part) => scenario.name.includes(part)));
const format = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
// Issue 15's targets beside the figures, judged on this run alone; a smoke run, one cold
// second per scenario, only shows that the benchmark works.
const SEEDED_TARGET = 0.9; // seeded ÷ empty, per scenario
const verdict = (met: boolean) => (options.smoke ? 'not judged' : met ? 'met' : 'NOT MET');

async function main() {
  console.log(
    `Benchmark: wrk, 1 thread, ${CONNECTIONS} connections; each scenario ${WARMUP_SECONDS} s of warm-up, ` +
      `then ${ROUNDS} round(s) of ${ROUND_SECONDS} s on each server, alternating; ` +
      `${canPin ? 'servers on core 0, wrk on core 1' : 'taskset missing: not pinned'}; Node ${process.version}`,
  );
  console.log(
    `Both servers run as npm start does: ${Object.entries(launch.env)
      .map(([k, v]) => `${k}=${v} `)
      .join('')}node ${launch.nodeArgs.join(' ')}\n`,
  );
  // One start of each first, so that both run from a warm compile cache, as every start
  // after the first one on a machine does.
  const warmupResponses = path.join(work, 'warmup.json');
  writeFileSync(warmupResponses, JSON.stringify({ 'GET /': { status: 200, headers: {}, body: '' } }));
  const firstStart = await startServer(
    'src/main.ts',
    { ...LIFTED_LIMITS, DB_PATH: path.join(work, 'warmup.db') },
    '/api/v1/health',
  );
  await firstStart.stop();
  await (await startServer('test/bench/reference.ts', { RESPONSES_FILE: warmupResponses }, '/')).stop();
  const dbPath = path.join(work, 'empty.db');
  const main = await startServer('src/main.ts', { ...LIFTED_LIMITS, DB_PATH: dbPath }, '/api/v1/health');
  const limited = await startServer(
    'src/main.ts',
    { ...LIFTED_LIMITS, DAILY_MESSAGE_LIMIT: '1', DB_PATH: path.join(work, 'limited.db') },
    '/api/v1/health',
  );
  const capped = await openConversation(limited.url);
  const scenarios = await scenariosFor(main, capped);

  const canned: Record<string, Awaited<ReturnType<typeof sample>>> = {};
  for (const scenario of scenarios)
    canned[`${scenario.method} ${scenario.path}`] = await sample(
      scenario.server === 'main' ? main.url : limited.url,
      scenario,
    );
  const responsesFile = path.join(work, 'responses.json');
  writeFileSync(responsesFile, JSON.stringify(canned));
  const reference = await startServer(
    'test/bench/reference.ts',
    { RESPONSES_FILE: responsesFile },
    `/api/v1/directory/open-meteo`,
  );

  const results: { scenario: Scenario; comparison: Comparison }[] = [];
  for (const scenario of chosen(scenarios)) {
    results.push({
      scenario,
      comparison: compare(reference, scenario, scenario.server === 'main' ? main : limited, scenario),
    });
  }
  const rss = { reference: reference.peakRssKb(), service: main.peakRssKb() };

  const header =
    `${'scenario'.padEnd(36)} ` +
    `${'reference req/s'.padStart(15)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs'.padStart(7)}   ` +
    `${'service req/s'.padStart(13)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs'.padStart(7)}   ` +
    `${'ratio'.padStart(5)} ${'CPU ratio'.padStart(9)}   target`;
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const {
    scenario,
    comparison: { base: r, other: s, ratio, cpuRatio },
  } of results) {
    const warn = s.unexpected > 0 ? `  (${s.unexpected} unexpected statuses)` : '';
    const twin = results.find((other) => scenario.twin !== undefined && other.scenario.name.startsWith(scenario.twin))
      ?.comparison.other;
    const judged = !scenario.twin
      ? scenario.target > 0
        ? `> ${format(scenario.target, 2)} ${verdict(ratio > scenario.target)}`
        : 'reported'
      : twin
        ? `${format(s.cpuUs / twin.cpuUs, 2)}× the CPU of REST ` +
          `(≤ ${TWIN_CPU_TARGET}: ${verdict(s.cpuUs / twin.cpuUs <= TWIN_CPU_TARGET)})`
        : 'its REST twin was not run';
    console.log(
      `${scenario.name.padEnd(36)} ` +
        `${format(r.rps).padStart(15)} ${format(r.p50, 2).padStart(7)} ${format(r.p99, 2).padStart(7)} ` +
        `${format(r.cpuUs, 1).padStart(7)}   ` +
        `${format(s.rps).padStart(13)} ${format(s.p50, 2).padStart(7)} ${format(s.p99, 2).padStart(7)} ` +
        `${format(s.cpuUs, 1).padStart(7)}   ` +
        `${format(ratio, 2).padStart(5)} ${format(cpuRatio, 2).padStart(9)}   ${judged}${warn}`,
    );
  }
  console.log(
    'ratio: service req/s ÷ reference req/s. ' +
      "CPU ratio: reference CPU µs per request ÷ the service's, the same comparison measured",
  );
  console.log(
    "in the servers' own CPU time, which a busy neighbour disturbs less than req/s. " +
      "Both: the median of the rounds' ratios.",
  );
  const rssRatio = rss.service / rss.reference;
  console.log(
    `\npeak RSS: reference ${format(rss.reference / 1024, 1)} MiB, service ${format(rss.service / 1024, 1)} MiB ` +
      `(ratio ${format(rssRatio, 2)})`,
  );
  console.log(
    `start-up to the first 200 from /health, empty database: ${format(main.startupMs)} ms (` +
      `the first start of this run, which fills the compile cache on a fresh install: ` +
      `${format(firstStart.startupMs)} ms)`,
  );

  if (options.scale) {
    const seededPath = path.join(work, 'seeded.db');
    const seedStart = performance.now();
    seedDatabase(seededPath, SCALE_CONVERSATIONS, SCALE_MESSAGES_EACH);
    console.log(
      `\nseeded ${SCALE_CONVERSATIONS.toLocaleString('en')} conversations and ` +
        `${(SCALE_CONVERSATIONS * SCALE_MESSAGES_EACH).toLocaleString('en')} messages ` +
        `in ${format((performance.now() - seedStart) / 1000, 1)} s`,
    );
    const seededLimitedPath = path.join(work, 'seeded-limited.db');
    copyFileSync(seededPath, seededLimitedPath); // the same rows, for the daily-maximum refusal
    const seeded = await startServer('src/main.ts', { ...LIFTED_LIMITS, DB_PATH: seededPath }, '/api/v1/health');
    console.log(`start-up to the first 200 from /health, seeded database: ${format(seeded.startupMs)} ms\n`);
    const seededLimited = await startServer(
      'src/main.ts',
      { ...LIFTED_LIMITS, DAILY_MESSAGE_LIMIT: '1', DB_PATH: seededLimitedPath },
      '/api/v1/health',
    );
    const seededScenarios = await scenariosFor(seeded, await openConversation(seededLimited.url));
    console.log(
      `${'scenario'.padEnd(36)} ${'empty req/s'.padStart(11)} ${'CPU µs'.padStart(7)}   ` +
        `${'seeded req/s'.padStart(12)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs'.padStart(7)}   ` +
        `${'seeded/empty'.padStart(12)} ${'CPU ratio'.padStart(9)}   target`,
    );
    // The empty database's figures are measured again here, alternating with the seeded ones.
    const emptyScenarios = chosen(scenarios);
    for (const [index, scenario] of chosen(seededScenarios).entries()) {
      const server = scenario.server === 'main' ? seeded : seededLimited;
      const {
        base: empty,
        other: measured,
        ratio,
        cpuRatio,
      } = compare(emptyScenarios[index]!.server === 'main' ? main : limited, emptyScenarios[index]!, server, scenario);
      const warn = measured.unexpected > 0 ? `  (${measured.unexpected} unexpected statuses)` : '';
      console.log(
        `${scenario.name.padEnd(36)} ${format(empty.rps).padStart(11)} ${format(empty.cpuUs, 1).padStart(7)}   ` +
          `${format(measured.rps).padStart(12)} ${format(measured.p50, 2).padStart(7)} ` +
          `${format(measured.p99, 2).padStart(7)} ${format(measured.cpuUs, 1).padStart(7)}   ` +
          `${format(ratio, 2).padStart(12)} ${format(cpuRatio, 2).padStart(9)}   ` +
          `≥ ${SEEDED_TARGET} ${verdict(ratio >= SEEDED_TARGET)}${warn}`,
      );
    }
    await Promise.all([seeded.stop(), seededLimited.stop()]);
  }
  await Promise.all([main.stop(), limited.stop(), reference.stop()]);
  if (options.only === undefined || options.only.split(',').includes('waits')) await reportWaits();
}

/** Ten thousand polls waiting for the owner at once (issue 23): memory, idle CPU, commit to answer. */
async function reportWaits() {
  const polls = options.smoke ? 500 : 10_000;
  const measured = await measureWaits({
    root: ROOT,
    work,
    polls,
    nodeArgs: launch.nodeArgs,
    env: { ...launch.env, ...LIFTED_LIMITS, POLL_INTERVAL_SECONDS: '60' },
  });
  console.log(
    `\n${measured.polls.toLocaleString('en')} polls waiting at once: RSS ${format(measured.idleRssMiB, 1)} MiB idle, ` +
      `${format(measured.waitingRssMiB, 1)} MiB with them (${format(measured.bytesPerPoll)} bytes each); ` +
      `CPU while they wait ${format(measured.cpuPercentWhileWaiting, 1)} %; from the owner's commit to the answers: ` +
      `median ${format(measured.commitToAnswerMs.median)} ms, ` +
      `99th percentile ${format(measured.commitToAnswerMs.p99)} ms, last ${format(measured.commitToAnswerMs.max)} ms`,
  );
}

await main();
