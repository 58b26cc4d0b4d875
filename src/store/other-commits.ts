// Knowing when another connection (the owner script) has committed: PRAGMA data_version
// changes then, and only then. The server keeps two things in memory that such a commit
// can change, the directory snapshot and the conversation cache; each asks here.

import type { Store } from './store.ts';

/**
 * A check that answers true when another connection may have committed since it last
 * answered. The version is read at most once per event-loop turn: requests of one turn are
 * concurrent with such a commit anyway, and the next turn sees it.
 */
export function watchOtherCommits(store: Store): () => boolean {
  let seen = -1;
  let checkedThisTurn = false;
  return () => {
    if (checkedThisTurn) return false;
    checkedThisTurn = true;
    setImmediate(() => (checkedThisTurn = false));
    const version = store.dataVersion();
    if (version === seen) return false;
    seen = version;
    return true;
  };
}
