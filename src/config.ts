// Configuration, read once from the environment, validated and frozen.
// Every default is named here with the reason beside it.

import path from 'node:path';

const DEFAULT_PORT = 8080;
const DEFAULT_HOST = '127.0.0.1'; // self-hosting sits behind a reverse proxy
const DEFAULT_DB_PATH = 'data/service.db';
const DEFAULT_LISTINGS_PATH = 'data/listings.json'; // shipped listings, loaded into an empty database
const DEFAULT_DAILY_MESSAGE_LIMIT = 500; // the spec's shared daily maximum
const DEFAULT_POLL_INTERVAL_SECONDS = 60; // the spec's poll_after_seconds
const DEFAULT_CREATE_LIMIT_PER_HOUR = 30; // openings per client address: enough for honest agents
const DEFAULT_REQUEST_LIMIT_PER_MINUTE = 600; // ten a second per address absorbs bursts, stops floods

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dbPath: string;
  readonly listingsPath: string;
  /** null: the address the server actually listens on (resolved at start, PORT=0 included) */
  readonly publicBaseUrl: string | null;
  /** 0 = unlimited */
  readonly dailyMessageLimit: number;
  /** 0 = polling not enforced; the advertised poll_after_seconds stays this value */
  readonly pollIntervalSeconds: number;
  /** 0 = unlimited */
  readonly createLimitPerHour: number;
  /** 0 = unlimited */
  readonly requestLimitPerMinute: number;
  readonly trustProxy: boolean;
  /** program (and its arguments, split on spaces) run after each new client message */
  readonly notifyCommand: readonly string[] | null;
  /** how soon the owner usually answers, in the owner's words; null: no time is promised */
  readonly replyTime: string | null;
  /** origins allowed to call /mcp besides this service's own (DNS rebinding protection) */
  readonly mcpAllowedOrigins: readonly string[];
}

/** Thrown for a bad environment; its message is the one line printed before exiting. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Reads and validates the configuration; throws ConfigError naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = readInteger(env, 'PORT', DEFAULT_PORT, 0, 65535);
  const host = readString(env, 'HOST', DEFAULT_HOST);
  const dbPath = readString(env, 'DB_PATH', DEFAULT_DB_PATH);
  const publicBaseUrl = readBaseUrl(env);
  return Object.freeze({
    port,
    host,
    dbPath: dbPath === ':memory:' ? dbPath : path.resolve(dbPath),
    listingsPath: path.resolve(readString(env, 'LISTINGS_PATH', DEFAULT_LISTINGS_PATH)),
    publicBaseUrl,
    dailyMessageLimit: readInteger(env, 'DAILY_MESSAGE_LIMIT', DEFAULT_DAILY_MESSAGE_LIMIT, 0, 1e9),
    pollIntervalSeconds: readInteger(env, 'POLL_INTERVAL_SECONDS', DEFAULT_POLL_INTERVAL_SECONDS, 0, 86400),
    createLimitPerHour: readInteger(env, 'CREATE_LIMIT_PER_HOUR', DEFAULT_CREATE_LIMIT_PER_HOUR, 0, 1e6),
    requestLimitPerMinute: readInteger(env, 'REQUEST_LIMIT_PER_MINUTE', DEFAULT_REQUEST_LIMIT_PER_MINUTE, 0, 1e9),
    trustProxy: readBoolean(env, 'TRUST_PROXY', false),
    notifyCommand: readCommand(env, 'NOTIFY_COMMAND'),
    replyTime: readReplyTime(env, 'REPLY_TIME'),
    mcpAllowedOrigins: readOrigins(env, 'MCP_ALLOWED_ORIGINS'),
  });
}

function readString(env: Env, name: string, fallback: string): string {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  return value;
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${value}"`);
}

function readBaseUrl(env: Env): string | null {
  const value = env.PUBLIC_BASE_URL;
  if (value === undefined || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`PUBLIC_BASE_URL must start with http:// or https://, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function readReplyTime(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  if (!value) return null; // no promise the owner did not make
  if (value.length > 200 || /[\r\n]/.test(value)) throw new ConfigError(`${name} must be one line of at most 200 characters, such as "usually within a day"`);
  return value;
}

function readOrigins(env: Env, name: string): string[] {
  const values = (env[name] ?? '').split(',').map((value) => value.trim()).filter((value) => value !== '');
  return values.map((value) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value.replace(/\/$/, '')) {
      throw new ConfigError(`${name} must be comma-separated origins such as https://app.example.org, got "${value}"`);
    }
    return url.origin;
  });
}

function readCommand(env: Env, name: string): string[] | null {
  const value = env[name]?.trim();
  if (!value) return null;
  return value.split(/\s+/);
}
