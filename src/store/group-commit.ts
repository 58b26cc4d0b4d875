// Group commit as one named mechanism, after bbolt's DB.Batch: callers write
// `await batch(() => rule(store, ...))` and see nothing else of it.
//
// The rule runs at once, in the caller's own call stack, inside the write transaction the
// first write of this event-loop turn began (in a savepoint of its own, through
// Store.transaction, so a refused or failed write undoes only itself). At the end of the
// turn one COMMIT, one fsync, makes every write of the turn durable together, and only then
// does any of their promises settle: a 2xx still means the write is on disk. If the COMMIT
// fails, every write of the turn rejects with its error, and none was stored.

import type { Store } from './store.ts';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
interface Waiting {
  readonly outcome: Outcome;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export type Batch = <T>(write: () => T) => Promise<T>;

/** The `batch` function for one store. */
export function createBatch(store: Store): Batch {
  let turn: Waiting[] | null = null; // the writes of the open transaction

  function fail(writes: Waiting[], error: unknown): void {
    for (const write of writes) write.reject(error);
  }

  function commit(writes: Waiting[]): void {
    if (turn !== writes) return; // already rolled back and settled
    turn = null;
    try {
      store.commitWrite();
    } catch (error) {
      try {
        store.rollbackWrite();
      } catch {
        // SQLite rolls a failed commit back itself; a rollback that fails too changes nothing
      }
      fail(writes, error);
      return;
    }
    for (const { outcome, resolve, reject } of writes) {
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    }
  }

  return <T>(write: () => T): Promise<T> => {
    if (turn === null) {
      try {
        store.beginWrite();
      } catch (error) {
        return Promise.reject(error); // the write lock stayed busy: nothing was begun
      }
      turn = [];
      setImmediate(commit, turn);
    }
    const writes = turn;
    let outcome: Outcome;
    try {
      outcome = { ok: true, value: write() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    writes.push({ outcome, resolve: resolve as (value: unknown) => void, reject });
    if (!store.inTransaction()) {
      // A full disk or an I/O error rolled the whole transaction back, this turn's earlier writes too.
      turn = null;
      fail(writes, outcome.ok ? new Error('the write transaction was rolled back') : outcome.error);
    }
    return promise;
  };
}
