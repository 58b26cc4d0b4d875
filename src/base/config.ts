// Configuration, read once from the environment, validated and frozen. Every default is
// named here with the reason beside it; 0 turns a limit off.

import { isIPv6 } from 'node:net';
import path from 'node:path';

/** Thrown for a bad environment; its message is the one line printed before exiting. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;
export type Config = ReturnType<typeof loadConfig>;

/**
 * The configuration as the server runs it: the public base URL resolved (its own URL when
 * none was set), and the address it listens on.
 */
export type RunningConfig = Config & { readonly publicBaseUrl: string; readonly listenUrl: string };

/** Reads and validates the configuration; throws ConfigError naming the variable. */
export function loadConfig(env: Env = process.env) {
  const dbPath = readString(env, 'DB_PATH', 'data/service.db');
  return Object.freeze({
    port: readInteger(env, 'PORT', 8080, 0, 65535),
    // self-hosting sits behind a reverse proxy
    host: readString(env, 'HOST', '127.0.0.1'),
    dbPath: dbPath === ':memory:' ? dbPath : path.resolve(dbPath),
    // loaded into an empty database
    listingsPath: path.resolve(readString(env, 'LISTINGS_PATH', 'data/listings.json')),
    /** null: the address the server actually listens on (resolved at start, PORT=0 included) */
    publicBaseUrl: readBaseUrl(env),
    // the spec's shared daily maximum
    dailyMessageLimit: readInteger(env, 'DAILY_MESSAGE_LIMIT', 500, 0, 1e9),
    // One conversation's share of a day: an exchange with a human who answers by hand takes a
    // handful of messages, so 50 is far beyond an honest agent, and a flood from one conversation
    // stops at a tenth of the default maximum.
    dailyConversationShare: readInteger(env, 'DAILY_CONVERSATION_SHARE', 50, 0, 1e9),
    // One address's share (openings and follow-ups): room for a few agents behind one address
    // (a shared host or NAT) each holding a lively conversation, while a flood from one address
    // leaves 350 of the 450 client messages of a default day to everyone else.
    dailyAddressShare: readInteger(env, 'DAILY_ADDRESS_SHARE', 100, 0, 1e9),
    // A site's share (Web Bot Auth: every verified identity of one registrable domain together): an
    // operator often acts for many people from many addresses, so by default as much as the whole
    // verified pool (null: that default); the owner who finds one too busy blocks it by name or site.
    // DAILY_AGENT_SHARE, its name from before sites were counted, still works.
    dailySiteShare: readOptionalInteger(
      renamed(env, 'DAILY_SITE_SHARE', 'DAILY_AGENT_SHARE'),
      'DAILY_SITE_SHARE',
      0,
      1e9,
    ),
    // All verified strangers (signed, not the owner's contacts) together: a flood of identities, which
    // cost nothing to make, takes this much of the day and no more (null: a third of what clients may
    // store a day).
    dailyVerifiedShare: readOptionalInteger(env, 'DAILY_VERIFIED_SHARE', 0, 1e9),
    // All unverified client messages together: a flood of unsigned senders from many addresses takes
    // this much of the day and no more (null: a third of what clients may store a day). The third
    // that neither pool may take is room only the owner's contacts can use.
    dailyUnverifiedShare: readOptionalInteger(env, 'DAILY_UNVERIFIED_SHARE', 0, 1e9),
    // Kept for the owner's replies: clients can never fill the day to the point where the owner
    // must force a reply. At most a tenth of the maximum is ever kept (none under 10).
    dailyOwnerReserve: readInteger(env, 'DAILY_OWNER_RESERVE', 50, 0, 1e9),
    /** the advertised poll_after_seconds; 0: polling not enforced, still advertised as 0 */
    pollIntervalSeconds: readInteger(env, 'POLL_INTERVAL_SECONDS', 60, 0, 86400),
    // openings per address per hour: enough for honest agents
    createLimitPerHour: readInteger(env, 'CREATE_LIMIT_PER_HOUR', 30, 0, 1e6),
    // ten a second per address absorbs bursts and stops floods
    requestLimitPerMinute: readInteger(env, 'REQUEST_LIMIT_PER_MINUTE', 600, 0, 1e9),
    trustProxy: readBoolean(env, 'TRUST_PROXY', false),
    /** program (and its arguments, split on spaces) run after each new client message */
    notifyCommand: env.NOTIFY_COMMAND?.trim() ? env.NOTIFY_COMMAND.trim().split(/\s+/) : null,
    /** how soon the owner usually answers, in the owner's words; null: no time is promised */
    replyTime: readReplyTime(env, 'REPLY_TIME'),
    /** origins allowed to call /mcp besides this service's own (DNS rebinding protection) */
    mcpAllowedOrigins: readOrigins(env, 'MCP_ALLOWED_ORIGINS'),
    /** origins allowed to call the A2A endpoint besides this service's own */
    a2aAllowedOrigins: readOrigins(env, 'A2A_ALLOWED_ORIGINS'),
    /** hosts that outbound requests (webhooks, push notifications, listing checks) may reach over http or privately */
    outboundAllowedHosts: readHosts(env, 'OUTBOUND_ALLOWED_HOSTS'),
    /** null: GET /metrics is off; else the bearer token a Prometheus scrape must send */
    metricsToken: readSecret(env, 'METRICS_TOKEN'),
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

/** A whole number, or null when unset (the default is then worked out from other settings). */
function readOptionalInteger(env: Env, name: string, min: number, max: number): number | null {
  return env[name] ? readInteger(env, name, 0, min, max) : null;
}

/** The environment with a setting's older name read as its name; both set to different values is refused. */
function renamed(env: Env, name: string, olderName: string): Env {
  const older = env[olderName];
  if (!older) return env;
  if (env[name] && env[name] !== older) {
    throw new ConfigError(`${name} and ${olderName} (its older name) are set to different values; keep ${name} only`);
  }
  return { ...env, [name]: older };
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = env[name];
  if (!value) return fallback;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${value}"`);
}

/**
 * The origin agents reach: the service is served at the root of its origin (every page, route and
 * link starts at /), so a path, a query or a fragment would only be half applied, and is refused.
 */
function readBaseUrl(env: Env): string | null {
  const value = env.PUBLIC_BASE_URL;
  if (!value) return null;
  if (!URL.canParse(value)) throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${value}"`);
  const url = new URL(value);
  if (!/^https?:$/.test(url.protocol))
    throw new ConfigError(`PUBLIC_BASE_URL must start with http:// or https://, got "${value}"`);
  if (url.href !== `${url.origin}/`) {
    throw new ConfigError(
      `PUBLIC_BASE_URL must be an origin alone (scheme, host, optional port), such as https://agents.example.org, ` +
        `got "${value}": the service is served at the root of its host; give it a host of its own (a subdomain)`,
    );
  }
  return url.origin;
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

function readSecret(env: Env, name: string): string | null {
  const value = env[name];
  if (!value) return null;
  if (!/^[\x21-\x7e]{32,256}$/.test(value)) {
    const example = '$(openssl rand -hex 32)';
    throw new ConfigError(`${name} must be 32 to 256 printable characters without spaces, such as ${example}`);
  }
  return value;
}

function readHosts(env: Env, name: string): string[] {
  const values = (env[name] ?? '').split(',').map((value) => value.trim().toLowerCase());
  return values
    .filter((value) => value !== '')
    .map((value) => {
      if (!isHostEntry(value) || value.length > 253) {
        const what = 'comma-separated hosts, each a name or an address with an optional port, such as 127.0.0.1:9000';
        throw new ConfigError(`${name} must be ${what}, got "${value}"`);
      }
      return value;
    });
}

/** A name or an IPv4 address, or an [IPv6 address], each with an optional :port; or a bare IPv6 address. */
function isHostEntry(value: string): boolean {
  if (isIPv6(value)) return true;
  const entry = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+))(?::(\d{1,5}))?$/.exec(value);
  if (entry === null || (entry[1] !== undefined && !isIPv6(entry[1]))) return false;
  return entry[3] === undefined || (Number(entry[3]) >= 1 && Number(entry[3]) <= 65535);
}
