// What start-up says about a configuration that runs but is probably not what the owner meant,
// one line each with its fix; and the one mistake that stops it: a NOTIFY_COMMAND that cannot
// be run, which would otherwise only show as a failed notification per message, in the log.

import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { classifyAddress } from '../base/addresses.ts';
import { ConfigError, type Config, type RunningConfig } from '../base/config.ts';

// Hosts RFC 2606 sets aside for examples: a public URL on one of them was copied, not set.
const EXAMPLE_HOST = /(^|\.)example\.(org|com|net)$/i;

/** The lines start-up prints as warnings: each what looks wrong, and how to fix it. */
export function startupWarnings(config: RunningConfig, publicBaseUrlSet: boolean): string[] {
  const warnings: string[] = [];
  if (config.trustProxy && !publicBaseUrlSet) {
    warnings.push(
      'TRUST_PROXY=1, but PUBLIC_BASE_URL is not set: links, /llms.txt and the agent card name ' +
        `${config.publicBaseUrl}, and /mcp and /a2a refuse your public host; set PUBLIC_BASE_URL to the URL agents use`,
    );
  }
  if (config.trustProxy && !isLoopback(config.host)) {
    warnings.push(
      `TRUST_PROXY=1 with HOST=${config.host}: anyone who reaches port ${new URL(config.listenUrl).port} without ` +
        'passing through your proxy chooses the address they are counted as (any X-Forwarded-For); keep ' +
        'HOST=127.0.0.1 with the proxy on this machine, or let only the proxy reach the port',
    );
  }
  const host = new URL(config.publicBaseUrl).hostname;
  if (EXAMPLE_HOST.test(host)) {
    warnings.push(
      `PUBLIC_BASE_URL is still an example (${host}): agents are sent there; set it to your own public URL`,
    );
  }
  return warnings;
}

/** Only this machine can reach a loopback address: then every request with X-Forwarded-For came through it. */
function isLoopback(host: string): boolean {
  return host.toLowerCase() === 'localhost' || classifyAddress(host).endsWith('a loopback address');
}

/** Refuses a NOTIFY_COMMAND whose program does not exist or cannot be run by this user. */
export function checkNotifyCommand(config: Config): void {
  const program = config.notifyCommand?.[0];
  if (program === undefined) return;
  const candidates = program.includes('/')
    ? [path.resolve(program)]
    : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, program));
  if (candidates.some(isRunnable)) return;
  const where = program.includes('/') ? path.resolve(program) : `${program} (searched in PATH)`;
  throw new ConfigError(
    `NOTIFY_COMMAND names ${where}, which does not exist or this user cannot run; ` +
      'give the full path of an executable program (chmod +x), or unset NOTIFY_COMMAND',
  );
}

function isRunnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
