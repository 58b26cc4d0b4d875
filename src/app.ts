// Everything a handler may use, built once at start-up: configuration, the store, the
// directory snapshot, the clock, the limiters, the owner notifier and the log.

import type { Config } from './config.ts';
import type { Store } from './db.ts';
import { createDirectory } from './directory.ts';
import { createHourlyLimiter, createPollLimiter, createRequestLimiter } from './limits.ts';
import { createNotifier } from './notify.ts';

export type Log = (entry: Record<string, unknown>) => void;

export interface AppOptions {
  /** The clock, in epoch milliseconds; tests inject one to cross the UTC day boundary. */
  readonly now?: () => number;
  /** One JSON object per call; the default writes one line to stdout. */
  readonly log?: Log;
}

export type App = ReturnType<typeof createApp>;

/**
 * One JSON line per entry on stdout, written in batches: every 100 ms, at 64 KiB, and at
 * exit. A write to a pipe or file is a system call, and one per request was the largest
 * cost of a cheap request. A SIGKILL loses at most the last 100 ms of log lines.
 */
function createStdoutLog(): Log {
  const FLUSH_EVERY_MS = 100;
  const FLUSH_AT_BYTES = 65_536;
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    process.stdout.write(pending.join(''));
    pending = [];
    pendingBytes = 0;
  };
  setInterval(flush, FLUSH_EVERY_MS).unref();
  process.on('exit', flush);
  return (entry) => {
    const line = `${JSON.stringify(entry)}\n`;
    pending.push(line);
    pendingBytes += line.length;
    if (pendingBytes >= FLUSH_AT_BYTES) flush();
  };
}

const SWEEP_INTERVAL_MS = 60_000; // idle limiter entries are dropped once a minute

/** `config.publicBaseUrl` must be resolved: the server's own URL when none was configured. */
export function createApp(config: Config & { publicBaseUrl: string }, store: Store, options: AppOptions = {}) {
  const now = options.now ?? Date.now;
  const log = options.log ?? createStdoutLog();
  const limits = {
    requests: createRequestLimiter(config.requestLimitPerMinute),
    openings: createHourlyLimiter(config.createLimitPerHour),
    polls: createPollLimiter(config.pollIntervalSeconds),
  };
  const sweeper = setInterval(() => {
    const at = now();
    limits.requests.sweep(at);
    limits.openings.sweep(at);
    limits.polls.sweep(at);
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    config,
    store,
    now,
    log,
    limits,
    directory: createDirectory(store),
    notifyOwner: createNotifier(config.notifyCommand, log),
    stop: () => clearInterval(sweeper),
  };
}
