// `npx node test/bench/memory.ts [--runs 5]`: the resident memory of the service once it has
// started and answered /health, beside bare Node with the service's parts added one at a time
// (memory-layers.ts). Every row runs as `npm start` runs the service (its environment and Node
// flags, read from package.json), on a new database in a temp folder, and is measured from
// outside, from /proc. Writes nothing into the repository.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { layers, TRAFFIC, type Layer } from './memory-layers.ts';
import { binaryPages } from './memory-pages.ts';
import { ROOT, startCommand } from './servers.ts';
import { median } from './wrk.ts';

// --only <text>: the rows whose name contains it; --compare <checkout> (repeatable): that checkout's service
// too, in turn with this one's, each with its own start command (an A/B of two builds: `git worktree add`
// the other, with node_modules linked)
const { values: options } = parseArgs({
  options: { runs: { type: 'string' }, only: { type: 'string' }, compare: { type: 'string', multiple: true } },
});
const LAYERS = layers(options.only, options.compare);
// RSS moves by a few hundred KB between runs of the same program: each row is the median of its runs.
const RUNS = Number(options.runs ?? 5);
const SAMPLE_MS = 100;
// Settled: the last 2 s of readings within 64 KB of each other (or, at worst, 20 s after ready).
const STEADY_READINGS = 20;
const STEADY_KB = 64;
const SETTLE_LIMIT_MS = 20_000;

const work = mkdtempSync(path.join(tmpdir(), 'contact-service-memory-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

// A layer's program ends on SIGTERM as the service does, with process.exit, so that Node writes
// the compile cache (the warm-up run relies on it); the probe reports V8's heap on SIGUSR2.
const EXIT_ON_TERM = "process.once('SIGTERM', () => process.exit(0));";
const PROBE = path.join(work, 'probe.mjs');
// Diagnosis only, in a pass of its own: what the V8 heap holds, and how much of it a full
// collection (which an idle process never makes) would find dead.
writeFileSync(
  PROBE,
  `import v8 from 'node:v8';
import vm from 'node:vm';
v8.setFlagsFromString('--expose-gc'); // the context that holds gc() is made only once the heap is read
process.on('SIGUSR2', () => {
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]));
  const { total_physical_size: physical, used_heap_size: used } = v8.getHeapStatistics();
  vm.runInNewContext('gc')();
  const heap = { spaces, physical, used, usedAfterGc: v8.getHeapStatistics().used_heap_size };
  process.stdout.write('memory-probe ' + JSON.stringify(heap) + '\\n');
});`,
);
const entries = LAYERS.map((layer, i) => {
  if (layer.program === undefined) return path.join(layer.checkout ?? ROOT, 'src/main.ts');
  const file = path.join(work, `layer-${i}.mjs`);
  writeFileSync(file, `${EXIT_ON_TERM}\n${layer.program}\n`);
  return file;
});

interface Reading {
  rss: number; // KiB, as /proc/<pid>/status gives them
  anon: number;
  file: number;
  shmem: number;
}
interface Heap {
  spaces: Record<string, number>; // bytes
  physical: number;
  used: number;
  usedAfterGc: number;
}
interface Run {
  reading: Reading;
  afterGc?: Reading; // the probe's pass: settled again after the collection
  pages?: Map<string, number>; // MiB
  heap?: Heap;
}

function readingOf(pid: number): Reading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile'), shmem: field('RssShmem') };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves with the first stdout line that `wanted` accepts; rejects when the child exits first. */
function lineFrom(child: ChildProcess, wanted: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = () => reject(new Error(`the process exited with ${child.exitCode ?? child.signalCode}`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      if (!wanted(line)) return;
      child.off('exit', onExit);
      lines.close();
      resolve(line);
    });
  });
}

/** The reading once RSS has stopped moving: no fixed wait, but readings until they hold still. */
async function settled(pid: number): Promise<Reading> {
  const started = performance.now();
  const readings: Reading[] = [];
  for (;;) {
    readings.push(readingOf(pid));
    const last = readings.slice(-STEADY_READINGS).map((r) => r.rss);
    const steady = last.length === STEADY_READINGS && Math.max(...last) - Math.min(...last) <= STEADY_KB;
    if (steady || performance.now() - started > SETTLE_LIMIT_MS) return readings.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
}

async function get(base: string, path: string): Promise<void> {
  const answer = await fetch(base + path);
  await answer.arrayBuffer();
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
}

type Mode = 'warm-up' | 'measure' | 'probe';

async function runOnce(index: number, mode: Mode, pages?: ReturnType<typeof binaryPages>): Promise<Run> {
  const layer = LAYERS[index] as Layer;
  const launch = startCommand(layer.checkout);
  const folder = mkdtempSync(path.join(work, 'run-'));
  const env: Record<string, string | undefined> = { ...process.env, ...launch.env, HOST: '127.0.0.1' };
  env.DB_PATH = path.join(folder, 'service.db');
  env.PORT = String(await freePort());
  if (layer.coldCompileCache) env.NODE_COMPILE_CACHE = path.join(folder, 'compile-cache');
  if (layer.traffic) env.REQUEST_LIMIT_PER_MINUTE = '0';
  const probe = mode === 'probe' ? ['--import', PROBE] : [];
  const child = spawn(process.execPath, [...launch.nodeArgs, ...probe, entries[index]!], {
    cwd: layer.checkout ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await lineFrom(child, (line) => line === 'ready' || line.startsWith('Listening on '));
    if (layer.http) await get(`http://127.0.0.1:${env.PORT}`, '/api/v1/health');
    for (let i = 0; i < (layer.traffic ?? 0); i++) {
      await get(`http://127.0.0.1:${env.PORT}`, TRAFFIC[i % TRAFFIC.length]!);
    }
    const pid = child.pid as number;
    const run: Run = { reading: mode === 'warm-up' ? readingOf(pid) : await settled(pid) };
    if (mode === 'measure' && pages) run.pages = pages.of(pid);
    if (mode === 'probe') {
      const line = lineFrom(child, (l) => l.startsWith('memory-probe '));
      child.kill('SIGUSR2');
      run.heap = JSON.parse((await line).slice('memory-probe '.length)) as Heap;
      run.afterGc = await settled(pid);
    }
    return run;
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Each pass runs every row once per round, the rows in turn, so a slow spell falls on all of them. */
async function pass(mode: Mode, rounds: number, pages?: ReturnType<typeof binaryPages>): Promise<Run[][]> {
  const runs: Run[][] = LAYERS.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < LAYERS.length; i++) {
      runs[i]!.push(await runOnce(i, mode, pages));
      process.stderr.write('.');
    }
  }
  process.stderr.write('\n');
  return runs;
}

const MiB = (kib: number) => (kib / 1024).toFixed(1);
const bytesMiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

function rssTable(runs: Run[][]): string[] {
  const lines = ['| row | RSS MiB | added | RssAnon | RssFile | RssShmem | RSS of the runs |'];
  lines.push('|---|---|---|---|---|---|---|');
  let previous: number | null = null;
  runs.forEach((rowRuns, i) => {
    const pick = (key: keyof Reading) => median(rowRuns.map((run) => run.reading[key]));
    const rss = pick('rss');
    const { coldCompileCache, checkout, traffic } = LAYERS[i]!;
    const step = !coldCompileCache && checkout === undefined && !traffic; // a row that adds a part
    const added = previous === null || !step ? '' : `${rss >= previous ? '+' : ''}${MiB(rss - previous)}`;
    const all = rowRuns.map((run) => MiB(run.reading.rss)).join(', ');
    const cells = [MiB(rss), added, MiB(pick('anon')), MiB(pick('file')), MiB(pick('shmem')), all];
    lines.push(`| ${LAYERS[i]!.name} | ${cells.join(' | ')} |`);
    if (step) previous = rss;
  });
  return lines;
}

function heapTable(measured: Run[][], probed: Run[][]): string[] {
  const lines = [
    '| row | V8 heap | new space | old space | other spaces | used | live | RssAnon beside the heap ' +
      '| RSS with the probe | the same after a full GC |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  probed.forEach((rowRuns, i) => {
    const heaps = rowRuns.map((run) => run.heap!);
    const of = (pick: (heap: Heap) => number) => median(heaps.map(pick));
    const space = (name: string) => of((heap) => heap.spaces[name] ?? 0);
    const physical = of((heap) => heap.physical);
    const anon = median(measured[i]!.map((run) => run.reading.anon)) * 1024;
    const young = space('new_space');
    const old = space('old_space');
    const cells = [physical, young, old, physical - young - old];
    cells.push(of((heap) => heap.used), of((heap) => heap.usedAfterGc), anon - physical);
    const rss = [median(rowRuns.map((run) => run.reading.rss)), median(rowRuns.map((run) => run.afterGc!.rss))];
    lines.push(`| ${LAYERS[i]!.name} | ${cells.map(bytesMiB).join(' | ')} | ${rss.map(MiB).join(' | ')} |`);
  });
  return lines;
}

function pagesTable(runs: Run[][]): string[] {
  const total = (pages = new Map<string, number>()) => [...pages.values()].reduce((a, b) => a + b, 0);
  const of = (rowRuns: Run[], part: string) => median(rowRuns.map((run) => run.pages?.get(part) ?? 0));
  const parts = new Set(runs.flatMap((rowRuns) => rowRuns.flatMap((run) => [...(run.pages ?? new Map()).keys()])));
  const shown = [...parts].filter((part) => runs.some((rowRuns) => of(rowRuns, part) >= 0.1));
  const service = Math.max(0, LAYERS.findIndex((layer) => layer.program === undefined)); // its biggest parts first
  shown.sort((a, b) => of(runs[service]!, b) - of(runs[service]!, a));
  const lines = [`| part of the node binary | ${LAYERS.map((_, i) => i + 1).join(' | ')} |`];
  lines.push(`|---|${LAYERS.map(() => '---').join('|')}|`);
  const row = (name: string, cell: (rowRuns: Run[]) => number) =>
    lines.push(`| ${name} | ${runs.map((rowRuns) => cell(rowRuns).toFixed(1)).join(' | ')} |`);
  for (const part of shown) row(part, (rowRuns) => of(rowRuns, part));
  const rest = (run: Run) => total(run.pages) - shown.reduce((sum, part) => sum + (run.pages?.get(part) ?? 0), 0);
  row('the rest (under 0.1 each)', (rowRuns) => median(rowRuns.map(rest)));
  row('all', (rowRuns) => median(rowRuns.map((run) => total(run.pages))));
  return lines;
}

let pages: ReturnType<typeof binaryPages> | undefined;
try {
  pages = binaryPages(realpathSync(process.execPath));
} catch (err) {
  console.error(`No breakdown of the binary's pages (${(err as Error).message.split('\n')[0]}): nm and readelf needed`);
}
console.error(`Node ${process.version}, ${RUNS} runs of ${LAYERS.length} rows, in turn`);
await pass('warm-up', 1); // fills the compile cache of every row, as a service started before has
const measured = await pass('measure', RUNS, pages);
const probed = await pass('probe', RUNS);
const legend = LAYERS.map((layer, i) => `${i + 1}: ${layer.name}`).join('; ');
console.log(
  [
    `Idle memory after start-up and one /health, MiB, median of ${RUNS} runs (${process.version}).`,
    '',
    ...rssTable(measured),
    '',
    'The V8 heap, MiB, from a second pass with a probe loaded by --import (physical size; used; live after a',
    'full collection), RssAnon beside the heap (the C heap: SQLite, Node, V8 outside its heap), and RSS in',
    'that pass before and after the collection:',
    '',
    ...heapTable(measured, probed),
    ...(pages ? ['', `The node binary's resident pages, MiB, by row (${legend}):`, '', ...pagesTable(measured)] : []),
  ].join('\n'),
);
