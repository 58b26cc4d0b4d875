// `npm run bench [-- --smoke] [-- --scale]`: the service against a bare node:http
// reference that sends precomputed bytes of the same sizes, both driven by wrk in the same
// run, each pinned to one core when taskset is there. Writes nothing into the repository.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openConversation, sample, scenariosFor } from './scenarios.ts';
import { seedDatabase } from './seed.ts';
import { primeKeyDirectory, startBenchAgent } from './signed-agent.ts';
import { canPin, launch, ROOT, startServer, startServers, type Server } from './servers.ts';
import { measureWaits } from './waits.ts';
import { compare, CONNECTIONS, median, type Comparison, type Pace, type Scenario } from './wrk.ts';
const { values: options } = parseArgs({
  // --only <text>: just the scenarios whose name contains it, for a quick look at one change
  options: {
    smoke: { type: 'boolean' },
    scale: { type: 'boolean' },
    seconds: { type: 'string' },
    only: { type: 'string' },
  },
});
const SECONDS = Number(options.seconds ?? (options.smoke ? 1 : 12));
// Each comparison alternates the two servers over several short rounds (A B, B A, ...) and
// takes the median of the rounds' ratios: a slow spell of a shared machine then falls on
// both sides, and a single unlucky round does not decide the figure. Six rounds give each of
// the three processes of a server two (PROCESSES, below).
const ROUNDS = Math.max(1, Math.min(6, Math.floor(SECONDS / 2)));
const ROUND_SECONDS = Math.max(1, Math.round(SECONDS / ROUNDS));
// Unmeasured load on each server before its first round: a server that just started is
// still compiling its hot paths, which is start-up, measured on its own, not throughput.
const WARMUP_SECONDS = options.smoke ? 0 : 2;
// Each server runs as this many processes of the same build, on the same database; round r of
// a comparison runs on process r of each (servers.ts says why one process per side is not enough).
const PROCESSES = 3;
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
const TWIN_CPU_TARGET = 1.5; // a protocol door's CPU per request, at most, against its REST twin's
const pace: Pace = { warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, work };

// --only a,b: the scenarios whose names contain any of the comma-separated parts
const chosen = (scenarios: Scenario[]) =>
  scenarios.filter((scenario) => (options.only ?? '').split(',').some((part) => scenario.name.includes(part)));
const format = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
// The targets beside the figures, judged on this run alone; a smoke run, one cold
// second per scenario, only shows that the benchmark works.
const SEEDED_TARGET = 0.9; // seeded ÷ empty, per scenario
const verdict = (met: boolean) => (options.smoke ? 'not judged' : met ? 'met' : 'NOT MET');

// The verified agent whose signed requests two scenarios send; its key directory serves the whole run.
const agent = await startBenchAgent();

/** The service (and the same with a daily maximum of one message), each as PROCESSES processes on one database. */
async function startServices(dbPath: string, limitedPath: string) {
  const mainEnv = { ...LIFTED_LIMITS, ...agent.env, DB_PATH: dbPath };
  const main = await startServers(PROCESSES, 'src/main.ts', mainEnv, '/api/v1/health');
  await primeKeyDirectory(main, agent);
  const limited = await startServers(
    PROCESSES,
    'src/main.ts',
    { ...LIFTED_LIMITS, DAILY_MESSAGE_LIMIT: '1', DB_PATH: limitedPath },
    '/api/v1/health',
  );
  // The processes of a server share its database: a conversation opened through one is everyone's.
  const capped = await openConversation(limited[0]!.url);
  const scenarios = await scenariosFor(main[0]!, capped, agent.headers, agent.signWrites);
  const serving = (scenario: Scenario) => (scenario.server === 'main' ? main : limited);
  return { main, limited, scenarios, serving };
}

/** The reference, answering each scenario with the bytes the service answered it with. */
async function startReference(scenarios: Scenario[], serving: (scenario: Scenario) => Server[]) {
  const canned: Record<string, Awaited<ReturnType<typeof sample>>> = {};
  for (const scenario of scenarios) {
    canned[`${scenario.method} ${scenario.path}`] = await sample(serving(scenario)[0]!.url, scenario);
  }
  const responsesFile = path.join(work, 'responses.json');
  writeFileSync(responsesFile, JSON.stringify(canned));
  return startServers(
    PROCESSES,
    'test/bench/reference.ts',
    { RESPONSES_FILE: responsesFile },
    '/api/v1/directory/open-meteo',
  );
}

async function main() {
  console.log(
    `Benchmark: wrk, 1 thread, ${CONNECTIONS} connections; each scenario ${WARMUP_SECONDS} s of warm-up, ` +
      `then ${ROUNDS} round(s) of ${ROUND_SECONDS} s on each server, alternating; ` +
      `each server ${PROCESSES} processes, round r on process r; ` +
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

  const services = await startServices(path.join(work, 'empty.db'), path.join(work, 'limited.db'));
  const { main, limited, scenarios, serving } = services;
  const reference = await startReference(scenarios, serving);
  const results = chosen(scenarios).map((scenario) => ({
    scenario,
    comparison: compare(reference, scenario, serving(scenario), scenario, pace),
  }));
  printResults(results);
  const peakRss = (servers: Server[]) => median(servers.map((server) => server.peakRssKb()));
  const rss = { reference: peakRss(reference), service: peakRss(main) };
  console.log(
    `\npeak RSS, the median of each side's processes: reference ${format(rss.reference / 1024, 1)} MiB, ` +
      `service ${format(rss.service / 1024, 1)} MiB (ratio ${format(rss.service / rss.reference, 2)})`,
  );
  console.log(
    `start-up to the first 200 from /health, empty database: ${format(main[0]!.startupMs)} ms (` +
      `the first start of this run, which fills the compile cache on a fresh install: ` +
      `${format(firstStart.startupMs)} ms)`,
  );

  if (options.scale) await reportScale(scenarios, serving);
  await Promise.all([...main, ...limited, ...reference].map((server) => server.stop()));
  await agent.stop();
  if (options.only === undefined || options.only.split(',').includes('waits')) await reportWaits();
}

/** A door's (or a signed request's) CPU per request against its twin's, judged unless its target is 0. */
function twinVerdict(ratio: number, twin: string, target: number): string {
  const measured = `${format(ratio, 2)}× the CPU of ${twin}`;
  return target === 0 ? `${measured}, reported` : `${measured} (≤ ${target}: ${verdict(ratio <= target)})`;
}

function printResults(results: { scenario: Scenario; comparison: Comparison }[]): void {
  const header =
    `${'scenario'.padEnd(36)} ` +
    `${'reference req/s'.padStart(15)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs'.padStart(7)}   ` +
    `${'service req/s'.padStart(13)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs'.padStart(7)}   ` +
    `${'ratio'.padStart(5)} ${'CPU ratio'.padStart(9)}   target`;
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const { scenario, comparison } of results) {
    const { base: r, other: s, ratio, cpuRatio } = comparison;
    const warn = s.unexpected > 0 ? `  (${s.unexpected} unexpected statuses)` : '';
    const twin = results.find((other) => scenario.twin !== undefined && other.scenario.name.startsWith(scenario.twin))
      ?.comparison.otherCpuUs;
    // Round r of a door and of its twin ran on the same process: their ratio leaves out that process's luck.
    const twinRatio = twin && median(twin.map((twinUs, round) => comparison.otherCpuUs[round]! / twinUs));
    const judged = !scenario.twin
      ? scenario.target > 0
        ? `> ${format(scenario.target, 2)} ${verdict(ratio > scenario.target)}`
        : 'reported'
      : twinRatio
        ? twinVerdict(twinRatio, scenario.twin, scenario.twinTarget ?? TWIN_CPU_TARGET)
        : `${scenario.twin} was not run`;
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
      "Both: the median of the rounds' ratios. A door's CPU ÷ its twin's (REST; unsigned): the median of the rounds,",
  );
  console.log('round r of both on the same process of the service.');
}

/** The same scenarios on a seeded database, alternating with the empty one's. */
async function reportScale(scenarios: Scenario[], serving: (scenario: Scenario) => Server[]): Promise<void> {
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
  const seeded = await startServices(seededPath, seededLimitedPath);
  console.log(`start-up to the first 200 from /health, seeded database: ${format(seeded.main[0]!.startupMs)} ms\n`);
  console.log(
    `${'scenario'.padEnd(36)} ${'empty req/s'.padStart(11)} ${'CPU µs'.padStart(7)}   ` +
      `${'seeded req/s'.padStart(12)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs'.padStart(7)}   ` +
      `${'seeded/empty'.padStart(12)} ${'CPU ratio'.padStart(9)}   target`,
  );
  // The empty database's figures are measured again here, alternating with the seeded ones.
  const emptyScenarios = chosen(scenarios);
  for (const [index, scenario] of chosen(seeded.scenarios).entries()) {
    const empty = emptyScenarios[index]!;
    const {
      base,
      other: measured,
      ratio,
      cpuRatio,
    } = compare(serving(empty), empty, seeded.serving(scenario), scenario, pace);
    const warn = measured.unexpected > 0 ? `  (${measured.unexpected} unexpected statuses)` : '';
    console.log(
      `${scenario.name.padEnd(36)} ${format(base.rps).padStart(11)} ${format(base.cpuUs, 1).padStart(7)}   ` +
        `${format(measured.rps).padStart(12)} ${format(measured.p50, 2).padStart(7)} ` +
        `${format(measured.p99, 2).padStart(7)} ${format(measured.cpuUs, 1).padStart(7)}   ` +
        `${format(ratio, 2).padStart(12)} ${format(cpuRatio, 2).padStart(9)}   ` +
        `≥ ${SEEDED_TARGET} ${verdict(ratio >= SEEDED_TARGET)}${warn}`,
    );
  }
  await Promise.all([...seeded.main, ...seeded.limited].map((server) => server.stop()));
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
