// Driving a server with wrk: a scenario as wrk's Lua script, one measured run (req/s,
// latencies, and the server's own CPU time per request), and two servers compared in
// alternating rounds, so that a slow spell of a shared machine falls on both.

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pinned, type Server } from './servers.ts';

export const CONNECTIONS = 32;

export interface Scenario {
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
  /** the same request in another form: a protocol door's REST twin, a signed request's unsigned one */
  readonly twin?: string;
  /** how many times its twin's CPU per request it may take: 1.5 unless set; 0 = reported only */
  readonly twinTarget?: number;
  /** where the per-request unique key goes: the Idempotency-Key header, or the body's {{KEY}} */
  readonly keyIn?: 'header' | 'body';
  /** fresh Signature-Input and Signature pairs, one per request (a signature authorizes one write) */
  readonly signWrites?: (count: number) => [string, string][];
}

// Signatures made ahead of a run, per second of it: above what a signed write reaches on this machine.
const SIGNED_WRITES_PER_SECOND = 4_000;

function luaScript(scenario: Scenario, signatures?: string): string {
  const lines = [`wrk.method = "${scenario.method}"`];
  if (signatures !== undefined) {
    lines.push(
      'local inputs, signed = {}, {}',
      `for line in io.lines("${signatures}") do`,
      '  local input, signature = string.match(line, "^(.-)\t(.*)$")',
      '  inputs[#inputs + 1] = input',
      '  signed[#signed + 1] = signature',
      'end',
    );
  }
  for (const [name, value] of Object.entries(scenario.headers)) {
    lines.push(`wrk.headers["${name}"] = "${value.replace(/[\\"]/g, '\\$&')}"`); // a signature's quotes escaped
  }
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
      signatures === undefined ? '' : '  wrk.headers["signature-input"] = inputs[(counter - 1) % #inputs + 1]',
      signatures === undefined ? '' : '  wrk.headers["signature"] = signed[(counter - 1) % #signed + 1]',
      `  return wrk.format(nil, "${scenario.path}", nil, body)`,
      'end',
    );
  }
  return lines.join('\n');
}

export interface Measurement {
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

function runWrk(server: Server, scenario: Scenario, seconds: number, work: string): Measurement {
  const script = path.join(work, `${scenario.name.replace(/\W+/g, '-')}.lua`);
  let signatures: string | undefined;
  if (scenario.signWrites) {
    // Each run its own: a signature that authorized one write is refused on any other (a 401, counted).
    signatures = path.join(work, 'signatures.tsv');
    const pairs = scenario.signWrites(Math.ceil((seconds + 1) * SIGNED_WRITES_PER_SECOND));
    writeFileSync(signatures, `${pairs.map((pair) => pair.join('\t')).join('\n')}\n`);
  }
  writeFileSync(script, luaScript(scenario, signatures));
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

export const median = (values: number[]) => {
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

export interface Comparison {
  readonly base: Measurement;
  readonly other: Measurement;
  /** median over the rounds of other req/s ÷ base req/s */
  readonly ratio: number;
  /** median over the rounds of base CPU per request ÷ other's */
  readonly cpuRatio: number;
  /** the other server's CPU per request in each round, in order: round r ran on process r */
  readonly otherCpuUs: readonly number[];
}

/** How long a comparison runs, and where wrk's scripts go. */
export interface Pace {
  readonly warmupSeconds: number;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly work: string;
}

/**
 * Runs a scenario on two servers in alternating rounds. Each server may be several processes
 * of the same build: round r runs on process r of each side (modulo their number), and every
 * process is warmed up first.
 */
export function compare(
  base: readonly Server[],
  baseScenario: Scenario,
  other: readonly Server[],
  otherScenario: Scenario,
  pace: Pace,
): Comparison {
  if (pace.warmupSeconds > 0) {
    for (const server of base) runWrk(server, baseScenario, pace.warmupSeconds, pace.work);
    for (const server of other) runWrk(server, otherScenario, pace.warmupSeconds, pace.work);
  }
  const baseRounds: Measurement[] = [];
  const otherRounds: Measurement[] = [];
  for (let round = 0; round < pace.rounds; round++) {
    const runBase = () =>
      baseRounds.push(runWrk(base[round % base.length]!, baseScenario, pace.roundSeconds, pace.work));
    const runOther = () =>
      otherRounds.push(runWrk(other[round % other.length]!, otherScenario, pace.roundSeconds, pace.work));
    if (round % 2 === 0) {
      runBase();
      runOther();
    } else {
      runOther();
      runBase();
    }
  }
  return {
    base: combined(baseRounds),
    other: combined(otherRounds),
    ratio: median(baseRounds.map((b, i) => otherRounds[i]!.rps / b.rps)),
    cpuRatio: median(baseRounds.map((b, i) => b.cpuUs / otherRounds[i]!.cpuUs)),
    otherCpuUs: otherRounds.map((m) => m.cpuUs),
  };
}
