// Who may call the protocol doors (/mcp, /a2a) from a browser: a request whose Origin or
// Host is not this service is refused (DNS rebinding protection), and CORS headers go only
// to allowed origins. Both doors use this one module; each names its setting.

import type { IncomingMessage } from 'node:http';
import type { RunningConfig } from '../base/config.ts';
import type { Headers } from '../refusals/entry.ts';
import { refuse } from '../refusals/refusal.ts';

/** A protocol door: its path, the setting that allows more origins, and the headers its clients send. */
export interface Door {
  readonly endpoint: '/mcp' | '/a2a';
  readonly setting: 'MCP_ALLOWED_ORIGINS' | 'A2A_ALLOWED_ORIGINS';
  readonly allowedOrigins: (config: RunningConfig) => readonly string[];
  readonly requestHeaders: string;
}

export const MCP_DOOR: Door = {
  endpoint: '/mcp',
  setting: 'MCP_ALLOWED_ORIGINS',
  allowedOrigins: (config) => config.mcpAllowedOrigins,
  requestHeaders: 'Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name',
};
export const A2A_DOOR: Door = {
  endpoint: '/a2a',
  setting: 'A2A_ALLOWED_ORIGINS',
  allowedOrigins: (config) => config.a2aAllowedOrigins,
  requestHeaders: 'Authorization, Content-Type, Accept, A2A-Version, A2A-Extensions',
};

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

interface Trust {
  readonly hosts: ReadonlySet<string>;
  readonly origins: ReadonlySet<string>;
}
const trusted = new WeakMap<RunningConfig, Map<Door, Trust>>();

/**
 * The hosts and origins a door answers to: those of PUBLIC_BASE_URL and of the listen
 * address, with localhost, 127.0.0.1 and [::1] one host when it is a loopback one, and the
 * door's allowed origins. Worked out once per configuration.
 */
function trustOf(config: RunningConfig, door: Door): Trust {
  const known = trusted.get(config) ?? new Map<Door, Trust>();
  trusted.set(config, known);
  const found = known.get(door);
  if (found) return found;
  const hosts = new Set<string>();
  const origins = new Set(door.allowedOrigins(config).map((origin) => origin.toLowerCase()));
  for (const url of [new URL(config.publicBaseUrl), new URL(config.listenUrl)]) {
    const names = LOOPBACK_NAMES.includes(url.hostname) ? LOOPBACK_NAMES : [url.hostname];
    for (const name of names) {
      const host = url.port ? `${name}:${url.port}` : name;
      hosts.add(host.toLowerCase());
      origins.add(`${url.protocol}//${host}`.toLowerCase());
    }
  }
  const trust = { hosts, origins };
  known.set(door, trust);
  return trust;
}

/** The hosts this service answers to as itself (PUBLIC_BASE_URL's, the listen address's). */
export function ownHosts(config: RunningConfig): ReadonlySet<string> {
  return trustOf(config, MCP_DOOR).hosts;
}

/** Refuses a foreign Origin or Host with 403. */
export function checkOrigin(config: RunningConfig, door: Door, req: IncomingMessage): void {
  const trust = trustOf(config, door);
  const { origin, host } = req.headers;
  if (origin !== undefined && !trust.origins.has(origin.toLowerCase())) {
    throw refuse('forbidden_origin', door.endpoint, door.setting);
  }
  if (host === undefined || !trust.hosts.has(host.toLowerCase())) throw refuse('forbidden_host', door.endpoint);
}

/**
 * A door's preflight answer (204): Allow, and the CORS headers only when the Origin is allowed;
 * a foreign origin learns nothing of what the door would take.
 */
export function doorPreflightHeaders(config: RunningConfig, door: Door, req: IncomingMessage, allow: string): Headers {
  if (!corsForAllowedOrigin(config, door, req)['access-control-allow-origin']) return { allow };
  return {
    allow,
    'access-control-allow-methods': allow,
    'access-control-allow-headers': door.requestHeaders,
    'access-control-max-age': '86400',
  };
}

/** The CORS headers for an allowed Origin (echoed, with Vary); none for any other. */
export function corsForAllowedOrigin(config: RunningConfig, door: Door, req: IncomingMessage): Headers {
  const origin = req.headers.origin;
  if (origin === undefined || !trustOf(config, door).origins.has(origin.toLowerCase())) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'Retry-After, WWW-Authenticate, X-Request-Id',
    vary: 'Origin',
  };
}
