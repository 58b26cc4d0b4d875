// The rows of the idle-memory measurement (memory.ts): bare Node, then the service's own parts
// added one at a time, each a small program that holds what it built and idles, then the
// service itself as `npm start` runs it. Each row's program contains the row above it (the
// store replaces the bare SQLite connection), so the difference between two rows is one part.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './servers.ts';

export interface Layer {
  /** the row's name in the table */
  readonly name: string;
  /** the program, as an ES module; absent: the service's own entry, src/main.ts */
  readonly program?: string;
  /** the row answers GET /api/v1/health, asked once before it is measured, as the service is */
  readonly http: boolean;
  /** the environment beside the start command's (an empty compile cache, for one row) */
  readonly coldCompileCache?: boolean;
  /** the checkout whose service runs (the service's rows); this one when absent */
  readonly checkout?: string;
  /** requests made before the row settles, each path of TRAFFIC in turn (the request limit lifted) */
  readonly traffic?: number;
}

/** Public reads of every door that needs no credential. */
export const TRAFFIC = [
  '/api/v1/health',
  '/api/v1/directory',
  '/api/v1/contact-info',
  '/api/v1/openapi.json',
  '/',
  '/llms.txt',
  '/.well-known/agent-card.json',
];

const src = (file: string) => JSON.stringify(pathToFileURL(path.join(ROOT, 'src', file)).href);

// Every program prints `ready` once built; the runner waits for it (the service prints its URL).
const READY = "console.log('ready');";
const IDLE = 'setInterval(() => {}, 2 ** 30);';
const HTTP = `
const { createServer } = await import('node:http');
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"status":"ok"}');
});
await new Promise((resolve) => server.listen(Number(process.env.PORT), '127.0.0.1', resolve));`;
// As the store opens its file (store.ts), with one table read.
const SQLITE = `
const { DatabaseSync } = await import('node:sqlite');
const bare = new DatabaseSync(process.env.DB_PATH, { timeout: 5000, enableForeignKeyConstraints: true });
bare.exec('PRAGMA journal_mode = WAL');
bare.exec('PRAGMA synchronous = FULL');
bare.exec('CREATE TABLE t (a)');
bare.prepare('SELECT count(*) FROM t').get();`;
const SUFFIXES = `
const { suffixList } = await import(${src('base/sites.ts')});
suffixList();`;
const STORE = `
const { Store } = await import(${src('store/store.ts')});
const store = new Store(process.env.DB_PATH);`;
// As service.ts fills a new database.
const LISTINGS = `
const { readListingsFile } = await import(${src('directory/listings.ts')});
const shipped = ${JSON.stringify(path.join(ROOT, 'data/listings.json'))};
if (store.listings.count() === 0) store.listings.upsert(readListingsFile(shipped));`;
const MODULES = `
await import(${src('base/config.ts')});
await import(${src('service/service.ts')});`;

/** The rows, those whose name contains `only` when given; `compare`: the service of other checkouts too. */
export function layers(only?: string, compare: readonly string[] = []): Layer[] {
  const rows = LAYERS.filter((layer) => only === undefined || layer.name.includes(only));
  for (const checkout of compare) {
    rows.push({ name: `the service in ${checkout}`, http: true, checkout: path.resolve(checkout) });
  }
  return rows;
}

const program = (...parts: string[]) => [...parts, READY].join('\n');
const LAYERS: readonly Layer[] = [
  { name: 'node, idle', program: program(IDLE), http: false },
  { name: '+ an HTTP server', program: program(HTTP), http: true },
  { name: '+ node:sqlite, a file opened', program: program(HTTP, SQLITE), http: true },
  { name: '+ the Public Suffix List', program: program(HTTP, SQLITE, SUFFIXES), http: true },
  { name: '+ the store, migrated (for the bare file)', program: program(HTTP, SUFFIXES, STORE), http: true },
  { name: '+ the listings loaded', program: program(HTTP, SUFFIXES, STORE, LISTINGS), http: true },
  { name: '+ every module imported', program: program(HTTP, SUFFIXES, STORE, LISTINGS, MODULES), http: true },
  { name: 'the service (npm start)', http: true },
  { name: 'the service after 2,000 public reads', http: true, traffic: 2000 },
  { name: 'the service, empty compile cache', http: true, coldCompileCache: true },
];
