// Entry point: `npm start`. Reads the configuration, starts the service, prints one line
// with the URL, and shuts down gracefully on SIGTERM / SIGINT.

// npm start runs the Node 24 that `npm install` brings. Any Node without node:sqlite is
// refused here, with one line, before the modules that need it are loaded.
try {
  await import('node:sqlite');
} catch {
  console.error(
    `Cannot start: Node ${process.version} has no node:sqlite; run npm install, then npm start, which use Node 24`,
  );
  process.exit(1);
}
const { ConfigError, loadConfig } = await import('./base/config.ts');
const { ListingsError } = await import('./directory/listings.ts');
const { startService } = await import('./service/service.ts');

const SHUTDOWN_GRACE_MS = 10_000; // requests in flight get this long to finish

try {
  const config = loadConfig();
  const service = await startService(config);
  const shutdown = (signal: string) => {
    console.log(`${signal} received: finishing requests in flight, then closing the database`);
    setTimeout(() => {
      console.error('Requests still in flight after 10 s; exiting anyway');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`Could not close cleanly: ${(err as Error).message ?? String(err)}`);
        process.exit(1);
      },
    );
  };
  // Before the line that says it listens: whoever reads that line may stop it at once, and a
  // SIGTERM with no listener yet would kill it mid-sentence, without the graceful close.
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);

  console.log(`Listening on ${service.url} (database ${config.dbPath})`);
  const { migrated } = service;
  if (migrated) console.log(`Migrated the database from schema ${migrated.from} to ${migrated.to}.`);
  for (const warning of service.warnings) console.error(`Warning: ${warning}`);
} catch (err) {
  console.error(`Cannot start: ${startupProblem(err)}`);
  process.exit(1);
}

function startupProblem(err: unknown): string {
  if (err instanceof ConfigError) return err.message;
  if (err instanceof ListingsError) return `invalid listings: ${err.problems.join('; ')}`;
  const error = err as NodeJS.ErrnoException;
  if (error.code === 'EADDRINUSE') return `the port is already in use (${error.message}); set PORT to a free one`;
  if (error.code === 'ERR_SQLITE_ERROR' || error.code?.startsWith('E'))
    return `the database at DB_PATH cannot be opened: ${error.message}`;
  return error.message ?? String(err);
}
