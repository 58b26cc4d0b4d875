// Work that runs from a timer, not from a request: the delivery loop, the sweeps, the checks of
// held polls. Nothing such work meets may stop the server: an error (a database the owner's
// script keeps locked past the busy timeout, a table a bad restore removed) is logged, what was
// due stays due, and the task runs again on its next turn.

import { describeError, type Log } from './log.ts';

/** A repeating error is logged at most this often, with how many times it was not. */
const LOG_AT_MOST_EVERY_MS = 60_000;

/** `run` as a timer's callback that never throws: each failure logged, at most once a minute. */
export function keepRunning(task: string, run: () => void, log: Log, now: () => number = Date.now): () => void {
  let loggedAt = -Infinity;
  let unlogged = 0;
  return () => {
    try {
      run();
    } catch (err) {
      const at = now();
      if (at - loggedAt < LOG_AT_MOST_EVERY_MS) {
        unlogged++;
        return;
      }
      const entry = { time: new Date(at).toISOString(), level: 'error', task, error: describeError(err) };
      log(unlogged > 0 ? { ...entry, repeated_since_last_line: unlogged } : entry);
      loggedAt = at;
      unlogged = 0;
    }
  };
}
