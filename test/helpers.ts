// Test helpers: a real service on port 0 against a temp database, cleaned up by t.after().

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { loadConfig } from '../src/base/config.ts';
import { parseListings } from '../src/directory/listings.ts';
import { startService, type RunningService, type StartOptions } from '../src/service/service.ts';
import type { Quotas } from '../src/rules/quotas.ts';
import { Store } from '../src/store/store.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const FIXTURE_LISTINGS = path.join(ROOT, 'test/fixtures/listings.json');
/** The server's time-outs, shortened so that a test sees each one act within a second. */
export const SHORT_TIMEOUTS = {
  headersTimeout: 300,
  requestTimeout: 600,
  keepAliveTimeout: 200,
  connectionsCheckingInterval: 50,
  shutdownGrace: 300,
};

/** Quotas that never refuse, for tests that call the rules directly. */
export const UNLIMITED_QUOTAS: Quotas = {
  dailyMaximum: 0,
  conversationShare: 0,
  addressShare: 0,
  siteShare: 0,
  unverifiedPool: 0,
  verifiedPool: 0,
  ownerReserve: 0,
  openingsPerHour: 0,
};

/** Where work to undo at the end is registered: a test's context, or a script's own list (screenshot.ts). */
export interface Cleanup {
  after(fn: () => unknown): void;
}

/** A temp folder removed when the test ends. */
export function tempDir(t: Cleanup): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'contact-service-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A clock the test moves by hand. */
export function fakeClock(startIso = '2026-03-10T12:00:00.000Z') {
  let now = Date.parse(startIso);
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    set(iso: string) {
      now = Date.parse(iso);
    },
  };
}

export interface TestService extends RunningService {
  readonly dbPath: string;
  readonly logs: Record<string, unknown>[];
}

/**
 * Starts the service with the fixture listings. Abuse limits are lifted unless the test
 * sets them, so that only the rule under test can refuse a request.
 */
export async function startTestService(
  t: TestContext,
  options: { env?: Record<string, string>; dir?: string } & Omit<StartOptions, 'log'> = {},
): Promise<TestService> {
  const dir = options.dir ?? tempDir(t);
  const dbPath = path.join(dir, 'service.db');
  const config = loadConfig({
    PORT: '0',
    DB_PATH: dbPath,
    LISTINGS_PATH: FIXTURE_LISTINGS,
    CREATE_LIMIT_PER_HOUR: '0',
    REQUEST_LIMIT_PER_MINUTE: '0',
    ...options.env,
  });
  const logs: Record<string, unknown>[] = [];
  const { env: _env, dir: _dir, ...startOptions } = options;
  const service = await startService(config, { ...startOptions, log: (entry) => logs.push(entry) });
  t.after(() => service.close());
  return Object.assign(service, { dbPath, logs });
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: any;
}

/** fetch with the body read and parsed; `json` sets Content-Type: application/json. */
export async function request(
  base: string,
  method: string,
  urlPath: string,
  options: { token?: string; key?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  let body = options.body;
  if (options.json !== undefined && method !== 'GET' && method !== 'HEAD') {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(base + urlPath, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the test looks at `text`
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

let keyCounter = 0;
/** A fresh, valid Idempotency-Key. */
export function newKey(): string {
  keyCounter += 1;
  return `test-key-${process.pid}-${keyCounter}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Opens a conversation and returns its id and credential. */
export async function openConversation(
  base: string,
  json: unknown = { message: 'Hello, owner.', metadata: { agent_name: 'test-agent' } },
): Promise<{ id: string; token: string; body: Record<string, unknown> }> {
  const response = await request(base, 'POST', '/api/v1/conversations', { key: newKey(), json });
  if (response.status !== 201) throw new Error(`opening failed: ${response.status} ${response.text}`);
  return { id: response.body.id, token: response.body.access_token, body: response.body };
}

/**
 * Asserts the contract's error body with `status`, and that its message says `says`: a
 * refusal must tell the client what to fix, in a capitalised sentence. Returns the message.
 */
export function assertRefused(response: ApiResponse, status: number, says: RegExp, label = ''): string {
  const context = label ? ` (${label})` : '';
  if (response.status !== status)
    throw new Error(`expected status ${status}${context}, got ${response.status}: ${response.text}`);
  const contentType = response.headers.get('content-type');
  if (contentType !== 'application/json; charset=utf-8') throw new Error(`error content-type was ${contentType}`);
  const keys = Object.keys(response.body ?? {});
  if (keys.length !== 1 || keys[0] !== 'error') throw new Error(`error body has keys ${keys.join(',')}`);
  const { code, message } = response.body.error;
  if (code !== status || typeof message !== 'string') throw new Error(`bad error body: ${response.text}`);
  if (!/^[A-Z].*[.)]$/s.test(message))
    throw new Error(`the ${status} message is not a capitalised sentence${context}: ${message}`);
  if (!says.test(message)) throw new Error(`the ${status} message does not say ${says}${context}: ${message}`);
  return message;
}

/** How many responses got each status: { 201: 5, 429: 25 }. */
export function statuses(responses: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Waits until `condition` holds, checking every 10 ms; fails naming `what` after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs a project script with Node 24 as a child process and collects its output. */
export function runNode(args: string[], options: Parameters<typeof runCommand>[2] = {}) {
  return runCommand(process.execPath, args, options);
}

/**
 * Runs the owner's script as the README tells the owner to (npm run -s owner -- …), against the
 * database at `dbPath`.
 */
export function runOwner(
  dbPath: string,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
) {
  return runCommand('npm', ['run', '-s', 'owner', '--', ...args], {
    env: { DB_PATH: dbPath, ...options.env },
    input: options.input,
  });
}

/** Runs a program from the project folder as a child process and collects its output. */
export function runCommand(
  program: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string; timeoutMs?: number; cwd?: string; uid?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 20_000,
      ...(options.uid !== undefined && { uid: options.uid, gid: options.uid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // a child that exits without reading its input closed the pipe: EPIPE
    child.stdin.end(options.input ?? '');
  });
}

export interface ServerProcess {
  readonly url: string;
  /** Everything the process printed so far, stdout and stderr together. */
  output(): string;
  /** Sends the signal and waits for the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** Runs `npm start`'s entry point (of the checkout at `cwd`) as a child process and waits for its start-up line. */
export async function startServerProcess(
  t: TestContext,
  env: Record<string, string>,
  cwd = ROOT,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd,
    env: { ...process.env, PORT: '0', LISTINGS_PATH: FIXTURE_LISTINGS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // 'close', not 'exit': by then every line it printed has been read.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  t.after(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  await waitUntil(() => /^Listening on /m.test(output) || hasExited, 'the server printed its start-up line');
  const url = /^Listening on (\S+)/m.exec(output)?.[1];
  if (url === undefined) throw new Error(`the server exited: ${output}`);
  return {
    url,
    output: () => output,
    stop(signal) {
      child.kill(signal);
      return exited;
    },
  };
}

/** Writes listings through a second connection, as the owner script does. */
export function upsertListingsAsOwner(dbPath: string, listings: unknown[]): void {
  const store = new Store(dbPath);
  try {
    store.listings.upsert(parseListings(listings));
  } finally {
    store.close();
  }
}
