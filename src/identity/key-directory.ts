// The agents' key directories, fetched through the caller's outbound guard and kept per directory
// URL: a key is found by (directory URL, thumbprint), never by keyid alone, so a key learned from
// one agent never verifies a request that names another. Rules (docs/verified-agents.md): a
// directory is kept for its max-age clamped to 5 min – 24 h (1 h when absent); a failed fetch is
// remembered 5 min and keeps the keys fetched earlier, usable until a later fetch succeeds without
// them. Bounded: directories and bytes held (oldest written out first), fetches in flight (past
// it: busy); requests for one directory share its fetch. Time is the caller's `now` (ms), for tests.

import type { KeyObject } from 'node:crypto';
import { directoryKey } from './jwk.ts';
import { excerpt } from './structured-fields.ts';

/** What the outbound guard answered; it throws an Error whose message can be shown when it could not. */
export interface DirectoryAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}
export type FetchDirectory = (url: URL) => Promise<DirectoryAnswer>;

/** Thrown by a fetch that could not even start (the outbound guard's lookups are all busy): not remembered. */
export class DirectoryBusy extends Error {}

export type KeyLookup =
  | { readonly kind: 'key'; readonly key: KeyObject }
  | { readonly kind: 'unknown-key' }
  | { readonly kind: 'unavailable'; readonly problem: string; readonly retryAfterSeconds: number }
  | { readonly kind: 'busy'; readonly retryAfterSeconds: number };

export interface KeyDirectoriesOptions {
  readonly fetchDirectory: FetchDirectory;
  readonly maxDirectories?: number;
  readonly maxBytes?: number;
  readonly maxInFlight?: number;
}

export const DEFAULT_MAX_AGE_SECONDS = 3_600; // verified-agents.md: a directory without max-age is kept an hour
export const MIN_MAX_AGE_SECONDS = 300; // a directory is not fetched again sooner, whatever it says
export const MAX_MAX_AGE_SECONDS = 86_400; // nor kept longer: a removed key stops verifying within a day
export const FAILURE_SECONDS = 300; // a failed fetch is not tried again for 5 min (the draft's negative-cache bound)
export const MAX_KEYS_READ = 32; // keys read from one JWK Set; an agent rotating needs two or three
export const MAX_DIRECTORIES = 1_000; // agents remembered; past it the oldest is fetched again when next needed
export const MAX_BYTES = 4 * 1024 * 1024; // estimated memory of what is kept (KEY_BYTES a key)
export const MAX_IN_FLIGHT = 8; // directory fetches at once; each holds a socket for up to the guard's time-out
export const BUSY_RETRY_AFTER_SECONDS = 10; // a fetch in flight ends within the outbound guard's 10 s time-out
const KEY_BYTES = 1_024; // measured about 900 bytes of RSS for an Ed25519 KeyObject kept in a Map
const ENTRY_BYTES = 512; // a directory's record and map entry, beside its URL and problem text
const MAX_REASON_LENGTH = 300; // of the guard's message repeated: it already cuts what the agent sent

/** One directory as last fetched. */
interface Directory {
  /** the keys of the last fetch that succeeded, by thumbprint; undefined until one has */
  readonly keys: ReadonlyMap<string, KeyObject> | undefined;
  /** when the keys are to be fetched again (ms) */
  readonly freshUntil: number;
  /** the last fetch's failure, remembered until `until` (ms) */
  readonly failure: { readonly problem: string; readonly until: number } | undefined;
  readonly bytes: number;
}

export class KeyDirectories {
  readonly #fetchDirectory: FetchDirectory;
  readonly #maxDirectories: number;
  readonly #maxBytes: number;
  readonly #maxInFlight: number;
  readonly #directories = new Map<string, Directory>(); // in the order written, oldest first
  readonly #inFlight = new Map<string, Promise<Directory>>();
  #bytes = 0;

  constructor(options: KeyDirectoriesOptions) {
    this.#fetchDirectory = options.fetchDirectory;
    this.#maxDirectories = options.maxDirectories ?? MAX_DIRECTORIES;
    this.#maxBytes = options.maxBytes ?? MAX_BYTES;
    this.#maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  }

  /** The key whose RFC 7638 thumbprint is `keyid` in the directory at `directoryUrl`, fetching it when due. */
  async keyFor(directoryUrl: string, keyid: string, now: number): Promise<KeyLookup> {
    const known = this.#directories.get(directoryUrl);
    if (known?.keys !== undefined && now < known.freshUntil) return answer(known, keyid, now);
    if (known?.failure !== undefined && now < known.failure.until) return answer(known, keyid, now);
    let fetching = this.#inFlight.get(directoryUrl); // one fetch per directory, shared by every request for it
    if (fetching === undefined) {
      if (this.#inFlight.size >= this.#maxInFlight) {
        const stale = known?.keys?.get(keyid); // still usable: no fetch has succeeded without it
        if (stale !== undefined) return { kind: 'key', key: stale };
        return { kind: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
      }
      fetching = this.#refresh(directoryUrl, known, now).finally(() => this.#inFlight.delete(directoryUrl));
      this.#inFlight.set(directoryUrl, fetching);
    }
    try {
      return answer(await fetching, keyid, now);
    } catch (err) {
      // The outbound guard had no room to start the fetch: every request that waited for it is busy.
      if (err instanceof DirectoryBusy) return { kind: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
      throw err;
    }
  }

  /** Fetches a directory and keeps the outcome: its keys, or the failure beside the keys fetched earlier. */
  async #refresh(url: string, previous: Directory | undefined, now: number): Promise<Directory> {
    let next: Directory;
    try {
      const fetched = await this.#fetchDirectory(new URL(url));
      const keys = readJwkSet(fetched);
      const freshUntil = now + maxAgeSeconds(fetched.headers['cache-control']) * 1000;
      next = { keys, freshUntil, failure: undefined, bytes: ENTRY_BYTES + url.length * 2 + keys.size * KEY_BYTES };
    } catch (err) {
      if (err instanceof DirectoryBusy) throw err; // nothing was asked: nothing to remember
      const reason = err instanceof Error ? err.message : String(err);
      const shown = reason.length <= MAX_REASON_LENGTH ? reason : `${reason.slice(0, MAX_REASON_LENGTH)}…`;
      const problem = `the key directory ${excerpt(url)} could not be fetched: ${shown}`;
      const keys = previous?.keys;
      const bytes = ENTRY_BYTES + (url.length + problem.length) * 2 + (keys?.size ?? 0) * KEY_BYTES;
      const failure = { problem, until: now + FAILURE_SECONDS * 1000 };
      next = { keys, freshUntil: previous?.freshUntil ?? 0, failure, bytes };
    }
    this.#keep(url, next);
    return next;
  }

  /** Keeps a directory as the newest, then drops the oldest ones until both bounds hold. */
  #keep(url: string, directory: Directory): void {
    const old = this.#directories.get(url);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#directories.delete(url);
    }
    this.#directories.set(url, directory);
    this.#bytes += directory.bytes;
    for (const [oldestUrl, oldest] of this.#directories) {
      if (oldestUrl === url) break; // the newest always stays: one directory is at most 32 keys
      if (this.#directories.size <= this.#maxDirectories && this.#bytes <= this.#maxBytes) break;
      this.#directories.delete(oldestUrl);
      this.#bytes -= oldest.bytes;
    }
  }
}

/** The answer a directory gives for `keyid`: after a failure, only a key fetched earlier. */
function answer(directory: Directory, keyid: string, now: number): KeyLookup {
  const key = directory.keys?.get(keyid);
  if (key !== undefined) return { kind: 'key', key };
  const { failure } = directory;
  if (failure !== undefined && now < failure.until) {
    const retryAfterSeconds = Math.max(1, Math.ceil((failure.until - now) / 1000));
    return { kind: 'unavailable', problem: failure.problem, retryAfterSeconds };
  }
  return { kind: 'unknown-key' };
}

/** The Ed25519 keys of a 200 answer holding a JWK Set, by thumbprint; throws an Error naming what is wrong. */
function readJwkSet(fetched: DirectoryAnswer): Map<string, KeyObject> {
  if (fetched.status !== 200) throw new Error(`it answered ${fetched.status}, not 200`);
  let set: unknown;
  try {
    set = JSON.parse(fetched.body.toString('utf8'));
  } catch {
    throw new Error('its body is not JSON (a JWK Set, {"keys": [...]}, is expected)');
  }
  const members = typeof set === 'object' && set !== null ? (set as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(members)) throw new Error('its body is not a JWK Set ({"keys": [...]})');
  const keys = new Map<string, KeyObject>();
  for (const member of members.slice(0, MAX_KEYS_READ)) {
    const found = directoryKey(member); // undefined for any key that is not OKP/Ed25519
    if (found !== undefined) keys.set(found.thumbprint, found.key);
  }
  return keys;
}

/** The directory's max-age clamped to 5 min – 24 h; 1 h without one; no-store or no-cache keep it the least. */
export function maxAgeSeconds(cacheControl: string | readonly string[] | undefined): number {
  const text = (typeof cacheControl === 'string' ? [cacheControl] : (cacheControl ?? [])).join(',').toLowerCase();
  const directives = text.split(',').map((directive) => directive.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return MIN_MAX_AGE_SECONDS;
  const maxAge = directives.find((directive) => /^max-age\s*=\s*"?\d+"?$/.test(directive));
  if (maxAge === undefined) return DEFAULT_MAX_AGE_SECONDS;
  const seconds = Number(/\d+/.exec(maxAge)?.[0]);
  return Math.min(MAX_MAX_AGE_SECONDS, Math.max(MIN_MAX_AGE_SECONDS, seconds));
}
