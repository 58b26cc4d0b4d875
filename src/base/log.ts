// The log: one JSON line per entry on stdout, written in batches every 100 ms, every 256
// entries, and at exit. A write to a pipe or file is a system call, and one per request was
// the largest cost of a cheap request. A SIGKILL loses at most the last 100 ms of lines.

/** A log entry is flat: it is serialised later, so it holds no object that could change. */
export type LogEntry = Readonly<Record<string, string | number | boolean | null>>;
export type Log = (entry: LogEntry) => void;

const FLUSH_EVERY_MS = 100;
const FLUSH_AT_ENTRIES = 256;

/** The default log of `npm start`. */
export function createStdoutLog(): Log {
  let pending: LogEntry[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const lines = pending.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    pending = [];
    process.stdout.write(lines);
  };
  setInterval(flush, FLUSH_EVERY_MS).unref();
  process.on('exit', flush);
  // A stdout that went away (a closed pipe) loses the log, never the server.
  process.stdout.on('error', () => {});
  return (entry) => {
    if (pending.push(entry) >= FLUSH_AT_ENTRIES) flush();
  };
}

/** An error as one short line: its name and message, cut, with anything shaped like a credential masked. */
export function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : typeof err === 'string' ? err : typeof err;
  return text.slice(0, 300).replace(/[0-9a-f]{64}/gi, '[64 hex characters]');
}
