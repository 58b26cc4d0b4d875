// The agents' key directories, fetched through the caller's outbound guard and kept per
// URL: a key is found by (key directory URL, thumbprint), never by keyid alone, so a key learned from
// one agent never verifies a request that names another. Rules (docs/verified-agents.md):
// - a directory is kept for its max-age clamped to 5 min – 24 h (1 h when absent); a keyid it does not
//   hold makes one new fetch, at most once a minute per directory (an operator rotating a key in);
// - a fetch that answers 404 or 410 withdraws the directory's keys at once; any other failure keeps
//   them, for at most 24 h after the last good fetch; every failure is remembered 5 min. A host that
//   failed (no answer, a time-out, a refusal, a 5xx) is remembered per host, so none of its directories
//   is asked for meanwhile; a host that answered, but not with a key directory (404, 410, another status,
//   a body that is not a JWK Set), is remembered for that URL only: anyone can name a page of a host
//   that is not a directory, and that must not make the host's real agents wait;
// - only good fetches are kept as directories, and past the bounds the oldest that never verified
//   anyone goes first: a failed or refused fetch never pushes out a directory that verified someone;
// - bounded: directories and bytes held, hosts remembered, fetches in flight in all and per client
//   address (past them, busy); requests for one directory share its fetch.
// Time is the caller's `now` (ms), for tests.

import type { KeyObject } from 'node:crypto';
import { keyDirectoryMember } from './jwk.ts';
import { excerpt } from './problems.ts';

/** What the host answered; the fetch throws an Error whose message can be shown when the host gave no answer. */
export interface KeyDirectoryAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}
export type FetchKeyDirectory = (url: URL) => Promise<KeyDirectoryAnswer>;

/** Thrown by a fetch that could not even start (the key directories' lookups are all busy): not remembered. */
export class KeyDirectoryBusy extends Error {}

export type KeyLookup =
  | { readonly kind: 'key'; readonly key: KeyObject }
  | { readonly kind: 'unknown-key' }
  | { readonly kind: 'unavailable'; readonly problem: string; readonly retryAfterSeconds: number }
  | { readonly kind: 'busy'; readonly retryAfterSeconds: number };

export interface KeyDirectoriesOptions {
  readonly fetchKeyDirectory: FetchKeyDirectory;
  readonly maxKeyDirectories?: number;
  readonly maxBytes?: number;
  readonly maxInFlight?: number;
}

export const DEFAULT_MAX_AGE_SECONDS = 3_600; // verified-agents.md: a directory without max-age is kept an hour
export const MIN_MAX_AGE_SECONDS = 300; // a directory is not fetched again sooner, whatever it says
export const MAX_MAX_AGE_SECONDS = 86_400; // nor kept longer: a removed key stops verifying within a day
export const FAILURE_SECONDS = 300; // a host (or URL) whose fetch failed is not asked again for 5 min
export const ROTATION_SECONDS = 60; // an unknown keyid refetches a directory at most once a minute
export const KEYS_OUTLIVE_SECONDS = 86_400; // keys outlive failed fetches by a day after the last good one
export const MAX_KEYS_READ = 32; // keys read from one JWK Set; an agent rotating needs two or three
export const MAX_KEY_DIRECTORIES = 1_000; // agents remembered; past it the oldest is fetched again when next needed
export const MAX_BYTES = 4 * 1024 * 1024; // estimated memory of what is kept (KEY_BYTES a key)
export const MAX_FAILURES = 1_000; // hosts and URLs remembered as failing; past it the oldest is forgotten
export const MAX_DIRECTORY_BYTES = 64 * 1024; // 32 keys are a few KiB: a larger body is not a key directory
export const MAX_IN_FLIGHT = 8; // directory fetches at once; each holds a socket for up to the guard's time-out
export const MAX_IN_FLIGHT_PER_CLIENT = 2; // of them, from one client address: one address cannot take them all
export const BUSY_RETRY_AFTER_SECONDS = 10; // a fetch in flight ends within the outbound guard's 10 s time-out
const KEY_BYTES = 1_024; // measured about 900 bytes of RSS for an Ed25519 KeyObject kept in a Map
const ENTRY_BYTES = 512; // a directory's record and map entry, beside its URL
const MAX_REASON_LENGTH = 300; // of the guard's message repeated: it already cuts what the agent sent

/** One directory as last fetched with success. */
interface KeyDirectory {
  readonly keys: ReadonlyMap<string, KeyObject>;
  /** when the keys are to be fetched again (ms) */
  readonly freshUntil: number;
  /** when they were last fetched with success (ms): they serve at most KEYS_OUTLIVE_SECONDS after */
  readonly goodAt: number;
  /** when a fetch of it last ended, well or not (ms): an unknown keyid refetches a minute after */
  readonly triedAt: number;
  /** whether a key of it was found for someone: kept before those that never were */
  readonly usedAt: number | null;
  readonly bytes: number;
}

/** A failed fetch as remembered: what to tell the agents, and until when (ms). */
interface Failure {
  readonly problem: string;
  readonly until: number;
}

/** What a fetch came to: the directory kept (or none), or why it failed, and whether that withdrew it. */
type Outcome = { readonly directory: KeyDirectory } | { readonly failure: string; readonly withdrawn: boolean };

export class KeyDirectories {
  readonly #fetchKeyDirectory: FetchKeyDirectory;
  readonly #maxKeyDirectories: number;
  readonly #maxBytes: number;
  readonly #maxInFlight: number;
  readonly #directories = new Map<string, KeyDirectory>(); // in the order written, oldest first
  readonly #failures = new Map<string, Failure>(); // by host when the host failed, by URL when it answered
  readonly #inFlight = new Map<string, Promise<Outcome>>();
  readonly #inFlightByClient = new Map<string, number>();
  #bytes = 0;

  constructor(options: KeyDirectoriesOptions) {
    this.#fetchKeyDirectory = options.fetchKeyDirectory;
    this.#maxKeyDirectories = options.maxKeyDirectories ?? MAX_KEY_DIRECTORIES;
    this.#maxBytes = options.maxBytes ?? MAX_BYTES;
    this.#maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  }

  /**
   * The key whose RFC 7638 thumbprint is `keyid` in the directory at `keyDirectoryUrl`, fetching it when
   * due; `client` is who asks (the client's address as its limits count it), for the per-client bound.
   */
  async keyFor(keyDirectoryUrl: string, keyid: string, now: number, client: string): Promise<KeyLookup> {
    const known = this.#usable(keyDirectoryUrl, now);
    const key = known?.keys.get(keyid);
    if (known !== undefined && now < known.freshUntil) {
      if (key !== undefined) return this.#found(keyDirectoryUrl, known, key, now);
      if (now < known.triedAt + ROTATION_SECONDS * 1000) return { kind: 'unknown-key' };
    }
    const host = new URL(keyDirectoryUrl).host;
    const failed = this.#failure(keyDirectoryUrl, now);
    if (failed !== undefined) {
      return key !== undefined ? this.#found(keyDirectoryUrl, known!, key, now) : unavailable(failed, now);
    }
    const fetching = this.#inFlight.get(keyDirectoryUrl) ?? this.#start(keyDirectoryUrl, host, now, client);
    if (fetching === undefined) {
      if (key !== undefined) return this.#found(keyDirectoryUrl, known!, key, now); // still usable meanwhile
      return { kind: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    let outcome: Outcome;
    try {
      outcome = await fetching;
    } catch (err) {
      // The key directories' lookups had no room to start the fetch: nothing was asked, nothing remembered.
      if (!(err instanceof KeyDirectoryBusy)) throw err;
      if (key !== undefined) return this.#found(keyDirectoryUrl, known!, key, now);
      return { kind: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    return this.#answer(keyDirectoryUrl, outcome, keyid, key, now);
  }

  /** The directory held for `url`, unless its keys are past their day since the last good fetch. */
  #usable(url: string, now: number): KeyDirectory | undefined {
    const known = this.#directories.get(url);
    if (known === undefined || now < known.goodAt + KEYS_OUTLIVE_SECONDS * 1000) return known;
    this.#drop(url);
    return undefined;
  }

  /** A key found: its directory has verified someone, and is kept before those that never did. */
  #found(url: string, directory: KeyDirectory, key: KeyObject, now: number): KeyLookup {
    if (directory.usedAt === null) this.#directories.set(url, { ...directory, usedAt: now });
    return { kind: 'key', key };
  }

  /** What a fetch that ended tells the request that waited for it. */
  #answer(url: string, outcome: Outcome, keyid: string, earlier: KeyObject | undefined, now: number): KeyLookup {
    if ('directory' in outcome) {
      const key = outcome.directory.keys.get(keyid);
      const kept = this.#directories.get(url);
      return key !== undefined && kept !== undefined ? this.#found(url, kept, key, now) : { kind: 'unknown-key' };
    }
    const kept = this.#directories.get(url);
    if (!outcome.withdrawn && earlier !== undefined && kept !== undefined) return this.#found(url, kept, earlier, now);
    const failed = this.#failure(url, now);
    return failed === undefined ? { kind: 'unknown-key' } : unavailable(failed, now);
  }

  /** The failure remembered for the directory's host, or else for the directory itself, while it lasts. */
  #failure(url: string, now: number): Failure | undefined {
    for (const failing of [new URL(url).host, url]) {
      const failed = this.#failures.get(failing); // an expired host failure must not hide the URL's own
      if (failed !== undefined && now < failed.until) return failed;
    }
    return undefined;
  }

  /** Starts the one fetch of a directory, unless the fetches in flight (in all, or the client's) are at their bound. */
  #start(url: string, host: string, now: number, client: string): Promise<Outcome> | undefined {
    const ofClient = this.#inFlightByClient.get(client) ?? 0;
    if (this.#inFlight.size >= this.#maxInFlight || ofClient >= MAX_IN_FLIGHT_PER_CLIENT) return undefined;
    this.#inFlightByClient.set(client, ofClient + 1);
    const fetching = this.#refresh(url, host, now).finally(() => {
      this.#inFlight.delete(url);
      const left = (this.#inFlightByClient.get(client) ?? 1) - 1;
      if (left === 0) this.#inFlightByClient.delete(client);
      else this.#inFlightByClient.set(client, left);
    });
    this.#inFlight.set(url, fetching);
    return fetching;
  }

  /** Fetches a directory and keeps the outcome: its keys; or, failed, the host remembered beside the keys held. */
  async #refresh(url: string, host: string, now: number): Promise<Outcome> {
    let fetched: KeyDirectoryAnswer;
    try {
      fetched = await this.#fetchKeyDirectory(new URL(url));
    } catch (err) {
      if (err instanceof KeyDirectoryBusy) throw err; // nothing was asked: nothing to remember
      return this.#failed(host, url, err instanceof Error ? err.message : String(err), false, now);
    }
    if (fetched.status === 404 || fetched.status === 410) {
      return this.#failed(url, url, `it answered ${fetched.status}: its keys are withdrawn`, true, now);
    }
    const failing = fetched.status >= 500 ? host : url; // a 5xx is the host's failure, as a time-out is
    let keys: Map<string, KeyObject>;
    try {
      keys = readJwkSet(fetched);
    } catch (err) {
      return this.#failed(failing, url, (err as Error).message, false, now);
    }
    const freshUntil = now + maxAgeSeconds(fetched.headers['cache-control']) * 1000;
    const usedAt = this.#directories.get(url)?.usedAt ?? null;
    const bytes = ENTRY_BYTES + url.length * 2 + keys.size * KEY_BYTES;
    const directory: KeyDirectory = { keys, freshUntil, goodAt: now, triedAt: now, usedAt, bytes };
    this.#keep(url, directory);
    return { directory };
  }

  /**
   * A failed fetch: what failed (the host, or the directory's URL) remembered, bounded; the directory
   * withdrawn or its keys kept as they were.
   */
  #failed(failing: string, url: string, reason: string, withdrawn: boolean, now: number): Outcome {
    const shown = reason.length <= MAX_REASON_LENGTH ? reason : `${reason.slice(0, MAX_REASON_LENGTH)}…`;
    const problem = `the key directory ${excerpt(url)} could not be fetched: ${shown}`;
    this.#failures.delete(failing); // written again as the newest
    this.#failures.set(failing, { problem, until: now + FAILURE_SECONDS * 1000 });
    for (const oldest of this.#failures.keys()) {
      if (this.#failures.size <= MAX_FAILURES) break;
      this.#failures.delete(oldest);
    }
    const known = this.#directories.get(url);
    if (withdrawn) this.#drop(url);
    else if (known !== undefined) this.#directories.set(url, { ...known, triedAt: now });
    return { failure: problem, withdrawn };
  }

  /** Keeps a directory as the newest, then drops the oldest ones, those never used first, until both bounds hold. */
  #keep(url: string, directory: KeyDirectory): void {
    this.#drop(url);
    this.#directories.set(url, directory);
    this.#bytes += directory.bytes;
    for (const spareUsed of [true, false]) {
      for (const [oldestUrl, oldest] of this.#directories) {
        if (this.#directories.size <= this.#maxKeyDirectories && this.#bytes <= this.#maxBytes) return;
        if (oldestUrl === url || (spareUsed && oldest.usedAt !== null)) continue; // the newest always stays
        this.#drop(oldestUrl);
      }
    }
  }

  #drop(url: string): void {
    const old = this.#directories.get(url);
    if (old === undefined) return;
    this.#bytes -= old.bytes;
    this.#directories.delete(url);
  }
}

function unavailable(failed: Failure, now: number): KeyLookup {
  const retryAfterSeconds = Math.max(1, Math.ceil((failed.until - now) / 1000));
  return { kind: 'unavailable', problem: failed.problem, retryAfterSeconds };
}

/** The Ed25519 keys of a 200 answer holding a JWK Set, by thumbprint; throws an Error naming what is wrong. */
function readJwkSet(fetched: KeyDirectoryAnswer): Map<string, KeyObject> {
  if (fetched.status !== 200) throw new Error(`it answered ${fetched.status}, not 200`);
  if (fetched.body.length > MAX_DIRECTORY_BYTES)
    throw new Error(`its body is larger than ${MAX_DIRECTORY_BYTES} bytes`);
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
    const found = keyDirectoryMember(member); // undefined for any key that is not OKP/Ed25519
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
