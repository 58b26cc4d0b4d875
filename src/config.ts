// Configuration, read once from the environment, validated and frozen. Every default is
// named here with the reason beside it; 0 turns a limit off.

import path from 'node:path';

/** Thrown for a bad environment; its message is the one line printed before exiting. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;
export type Config = ReturnType<typeof loadConfig>;

/** Reads and validates the configuration; throws ConfigError naming the variable. */
export function loadConfig(env: Env = process.env) {
  const dbPath = readString(env, 'DB_PATH', 'data/service.db');
  return Object.freeze({
    port: readInteger(env, 'PORT', 8080, 0, 65535),
    host: readString(env, 'HOST', '127.0.0.1'), // self-hosting sits behind a reverse proxy
    dbPath: dbPath === ':memory:' ? dbPath : path.resolve(dbPath),
    listingsPath: path.resolve(readString(env, 'LISTINGS_PATH', 'data/listings.json')), // loaded into an empty database
    /** null: the address the server actually listens on (resolved at start, PORT=0 included) */
    publicBaseUrl: readBaseUrl(env),
    dailyMessageLimit: readInteger(env, 'DAILY_MESSAGE_LIMIT', 500, 0, 1e9), // the spec's shared daily maximum
    /** the advertised poll_after_seconds; 0: polling not enforced, still advertised as 0 */
    pollIntervalSeconds: readInteger(env, 'POLL_INTERVAL_SECONDS', 60, 0, 86400),
    createLimitPerHour: readInteger(env, 'CREATE_LIMIT_PER_HOUR', 30, 0, 1e6), // openings per address: enough for honest agents
    requestLimitPerMinute: readInteger(env, 'REQUEST_LIMIT_PER_MINUTE', 600, 0, 1e9), // ten a second per address absorbs bursts, stops floods
    trustProxy: readBoolean(env, 'TRUST_PROXY', false),
    /** program (and its arguments, split on spaces) run after each new client message */
    notifyCommand: env.NOTIFY_COMMAND?.trim() ? env.NOTIFY_COMMAND.trim().split(/\s+/) : null,
    /** how soon the owner usually answers, in the owner's words; null: no time is promised */
    replyTime: readReplyTime(env, 'REPLY_TIME'),
    /** origins allowed to call /mcp besides this service's own (DNS rebinding protection) */
    mcpAllowedOrigins: readOrigins(env, 'MCP_ALLOWED_ORIGINS'),
  });
}

function readString(env: Env, name: string, fallback: string): string {
  return env[name] || fallback;
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = env[name];
  if (!value) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = env[name];
  if (!value) return fallback;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${value}"`);
}

function readBaseUrl(env: Env): string | null {
  const value = env.PUBLIC_BASE_URL;
  if (!value) return null;
  if (!URL.canParse(value)) throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${value}"`);
  if (!/^https?:$/.test(new URL(value).protocol))
    throw new ConfigError(`PUBLIC_BASE_URL must start with http:// or https://, got "${value}"`);
  return value.replace(/\/+$/, '');
}

function readReplyTime(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  if (!value) return null; // no promise the owner did not make
  if (value.length > 200 || /[\r\n]/.test(value))
    throw new ConfigError(`${name} must be one line of at most 200 characters, such as "usually within a day"`);
  return value;
}

function readOrigins(env: Env, name: string): string[] {
  const values = (env[name] ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  return values.map((value) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== value.replace(/\/$/, '')) {
      throw new ConfigError(`${name} must be comma-separated origins such as https://app.example.org, got "${value}"`);
    }
    return url.origin;
  });
}
