// How many of the service's functions and files one follow-up runs, on each door: V8's precise
// coverage (call counts, reset just before) of one warmed-up request, counted in src/ only. The
// measure the architecture is held to (docs/performance.md): a reader follows a follow-up through
// at most 20 files. Run with `npm run depth` (`-- --list` names every function).

import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/base/config.ts';
import { startService } from '../../src/service/service.ts';
import { openConversation } from './scenarios.ts';

const SRC = path.resolve(import.meta.dirname, '../../src') + path.sep;
const WARM_UP = 10; // follow-ups before the measured ones, so that every path has run and compiled
// Each door's follow-up is measured this many times and the fewest kept: a background timer (the
// deliveries' tick, once a second) that fires during one request is not that request's path.
const MEASURED = 3;

interface Door {
  readonly name: string;
  /** One follow-up on the conversation; resolves once its answer is read. */
  send(base: string, conversation: Opened, n: number): Promise<Response>;
}
type Opened = Awaited<ReturnType<typeof openConversation>>;

const json = { 'Content-Type': 'application/json' };
const bearer = (c: Opened) => ({ Authorization: `Bearer ${c.token}` });

const DOORS: readonly Door[] = [
  {
    name: 'REST POST /api/v1/conversations/{id}/messages',
    send: (base, c, n) =>
      fetch(`${base}/api/v1/conversations/${c.id}/messages`, {
        method: 'POST',
        headers: { ...json, ...bearer(c), 'Idempotency-Key': `depth-key-${n}` },
        body: JSON.stringify({ message: `Follow-up ${n}.` }),
      }),
  },
  {
    name: 'MCP tools/call send_message',
    send: (base, c, n) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...json, Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: n,
          method: 'tools/call',
          params: {
            name: 'send_message',
            arguments: { conversation_id: c.id, access_token: c.token, message: `Follow-up ${n}.` },
          },
        }),
      }),
  },
  {
    name: 'A2A SendMessage (JSON-RPC)',
    send: (base, c, n) =>
      fetch(`${base}/a2a`, {
        method: 'POST',
        headers: { ...json, ...bearer(c), 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: n,
          method: 'SendMessage',
          params: {
            message: { messageId: `depth-key-${n}`, role: 'ROLE_USER', parts: [{ text: `Follow-up ${n}.` }] },
            configuration: { historyLength: 0 },
          },
        }),
      }),
  },
];

export interface Depth {
  readonly door: string;
  readonly files: number;
  readonly functions: number;
  /** file (relative to src/) → the names of the functions it ran */
  readonly ran: ReadonlyMap<string, readonly string[]>;
}

/** The functions of src/ that ran at least once since the counts were last taken. */
function ranInSource(coverage: Awaited<ReturnType<typeof takeCoverage>>): Map<string, string[]> {
  const ran = new Map<string, string[]>();
  for (const script of coverage.result) {
    if (!script.url.startsWith('file:')) continue;
    const file = fileURLToPath(script.url);
    if (!file.startsWith(SRC)) continue;
    const names = script.functions
      .filter((fn) => fn.ranges[0] !== undefined && fn.ranges[0].count > 0)
      .map((fn) => fn.functionName || '(anonymous)');
    if (names.length > 0) ran.set(path.relative(SRC, file), names);
  }
  return ran;
}

async function takeCoverage(session: Session) {
  return session.post('Profiler.takePreciseCoverage');
}

/** Measures each door's follow-up on a service of its own database, with the default settings. */
export async function measureDepth(): Promise<Depth[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'depth-'));
  const service = await startService(loadConfig({ PORT: '0', DB_PATH: path.join(dir, 'service.db') }), {
    log: () => {}, // the request log is not what is measured
  });
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    const depths: Depth[] = [];
    for (const door of DOORS) {
      const conversation = await openConversation(service.url);
      for (let n = 1; n <= WARM_UP; n++) await expectOk(door, await door.send(service.url, conversation, n));
      let fewest: Depth | null = null;
      for (let n = WARM_UP + 1; n <= WARM_UP + MEASURED; n++) {
        await takeCoverage(session); // resets the counts
        await expectOk(door, await door.send(service.url, conversation, n));
        const ran = ranInSource(await takeCoverage(session));
        const functions = [...ran.values()].reduce((sum, names) => sum + names.length, 0);
        const depth = { door: door.name, files: ran.size, functions, ran };
        if (fewest === null || functions < fewest.functions) fewest = depth;
      }
      depths.push(fewest as Depth);
    }
    return depths;
  } finally {
    session.disconnect();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function expectOk(door: Door, response: Response): Promise<void> {
  const text = await response.text();
  if (!response.ok || text.includes('"error"')) throw new Error(`${door.name} answered ${response.status}: ${text}`);
}

if (import.meta.main) {
  const list = process.argv.includes('--list');
  for (const depth of await measureDepth()) {
    console.log(`${depth.door}: ${depth.functions} functions in ${depth.files} files`);
    if (!list) continue;
    for (const [file, names] of depth.ran) console.log(`  ${file}: ${names.join(', ')}`);
  }
}
