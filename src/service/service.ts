// Starting and stopping the whole service: used by main.ts and by the tests.

import type { AddressInfo } from 'node:net';
import type { Config } from '../base/config.ts';
import { suffixList } from '../base/sites.ts';
import { shown } from '../base/terminal.ts';
import { createApp, type AppOptions } from '../runtime/app.ts';
import { createRequestHandler } from '../http/request-handler.ts';
import { readListingsFile } from '../directory/listings.ts';
import { quotasOf } from '../rules/quotas.ts';
import { routes, unroutedPolicy } from './routes.ts';
import { closeGracefully, createHttpServer, SERVER_TIMEOUTS, type ServerTimeouts } from '../http/server.ts';
import { Store } from '../store/store.ts';
import { damagedRows } from '../store/damaged.ts';
import { MIGRATIONS } from '../store/migrations.ts';
import { checkNotifyCommand, startupWarnings } from './startup-checks.ts';

export interface RunningService {
  /** The base URL it listens on, e.g. http://127.0.0.1:8080 */
  readonly url: string;
  /** What looks misconfigured, one line each with its fix (startup-checks.ts); start-up prints them. */
  readonly warnings: readonly string[];
  /** The schema versions an existing database was migrated from and to at this start; null: none was. */
  readonly migrated: { readonly from: number; readonly to: number } | null;
  readonly store: Store;
  /** How many polls are held waiting for the owner now. */
  waitingPolls(): number;
  /** Stops accepting, finishes requests in flight, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions extends AppOptions {
  /** Tests shorten these to prove the limits without waiting for the defaults. */
  readonly timeouts?: ServerTimeouts;
  readonly busyTimeoutMs?: number;
}

/**
 * Listens, then opens the database (so a port already in use leaves no new file), loads the
 * shipped listings into an empty one, and records the limits it enforces.
 */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  checkNotifyCommand(config);
  suffixList(); // the Public Suffix List, read now: a missing or broken data file stops start-up here
  const timeouts = options.timeouts ?? SERVER_TIMEOUTS;
  const server = createHttpServer(timeouts);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  let store: Store;
  try {
    store = new Store(config.dbPath, options.busyTimeoutMs);
    openDatabase(store, config);
  } catch (err) {
    server.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  // Attached in the same turn as the listen callback, before the event loop can deliver a request.
  const running = Object.freeze({ ...config, publicBaseUrl: config.publicBaseUrl ?? url, listenUrl: url });
  const app = createApp(running, store, options);
  server.on('request', createRequestHandler(app, routes, unroutedPolicy));

  let closing: Promise<void> | null = null;
  return {
    url,
    warnings: [...startupWarnings(running, config.publicBaseUrl !== null), ...damagedWarning(store)],
    migrated: migrationOf(store),
    store,
    waitingPolls: () => app.waits.size,
    close() {
      if (closing === null) {
        app.stop(); // waiting polls are answered now, so that their connections can close
        closing = closeGracefully(server, timeouts.shutdownGrace).then(() => store.close());
      }
      return closing;
    },
  };
}

/** A new database is created, not migrated: nothing to say of it. */
function migrationOf(store: Store): RunningService['migrated'] {
  const from = store.schemaFound;
  return from === 0 || from === MIGRATIONS.length ? null : { from, to: MIGRATIONS.length };
}

function openDatabase(store: Store, config: Config): void {
  try {
    if (store.listings.count() === 0) store.listings.upsert(readListingsFile(config.listingsPath));
    // The owner script enforces the maximum the server runs with, and shows its shares.
    store.transaction(() => store.recordSetting('quotas', JSON.stringify(quotasOf(config))));
  } catch (err) {
    store.close();
    throw err;
  }
}

/** One line naming the rows whose stored JSON is damaged, if any: left out, or shown as none. */
function damagedWarning(store: Store): string[] {
  const rows = damagedRows(store.db);
  if (rows.length === 0) return [];
  return [
    `the database holds rows whose stored JSON is damaged, left out or shown as none: ${shown(rows.join(', '))}; ` +
      'restore a backup, or remove them',
  ];
}
