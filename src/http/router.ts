// The request target: split into its raw path and query, the path matched against the route table,
// its parameters and the query decoded. A tiny router: patterns compiled once, matched by a linear
// scan on the raw path. `:name` matches one non-empty path segment, returned as sent (still
// percent-encoded: the HTTP layer decodes it after taking from the request rate); `:name:verb`
// matches a segment that ends in `:verb` (A2A's `/tasks/{id}:cancel`); everything else matches exactly.

import { refuse } from '../refusals/refusal.ts';

export interface Route<H, P> {
  readonly method: string;
  readonly pattern: string;
  /** what applies to every answer of this path: caching and CORS (request-handler.ts) */
  readonly policy: P;
  readonly handler: H;
}
interface CompiledPath<H, P> {
  readonly pattern: string;
  readonly regex: RegExp;
  readonly paramNames: readonly string[];
  readonly policy: P;
  readonly handlers: Map<string, H>;
}

interface Found<H, P> {
  readonly kind: 'found';
  readonly handler: H;
  readonly pattern: string;
  readonly policy: P;
  readonly rawParams: Record<string, string>;
}
interface MethodNotAllowed<P> {
  readonly kind: 'method-not-allowed';
  readonly pattern: string;
  readonly policy: P;
  readonly allow: string;
}
export type RouteMatch<H, P> = Found<H, P> | MethodNotAllowed<P> | { readonly kind: 'not-found' };

/** Compiles a route table; `match` answers found, method-not-allowed (with Allow) or not-found. */
export function createRouter<H, P>(routes: readonly Route<H, P>[]) {
  const paths: CompiledPath<H, P>[] = [];
  for (const route of routes) {
    let compiled = paths.find((p) => p.pattern === route.pattern);
    if (!compiled) {
      compiled = { ...compilePattern(route.pattern), policy: route.policy, handlers: new Map() };
      paths.push(compiled);
    }
    compiled.handlers.set(route.method, route.handler);
  }

  return {
    match(method: string, rawPath: string): RouteMatch<H, P> {
      for (const compiled of paths) {
        const found = compiled.regex.exec(rawPath);
        if (!found) continue;
        const { pattern, policy } = compiled;
        const handler = compiled.handlers.get(method === 'HEAD' ? 'GET' : method);
        if (!handler) return { kind: 'method-not-allowed', pattern, policy, allow: allowHeader(compiled) };
        const rawParams: Record<string, string> = {};
        const { paramNames } = compiled;
        for (let i = 0; i < paramNames.length; i++) rawParams[paramNames[i]!] = found[i + 1]!;
        return { kind: 'found', handler, pattern, policy, rawParams };
      }
      return { kind: 'not-found' };
    },
  };
}

function compilePattern(pattern: string): { pattern: string; regex: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const source = pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const [name, verb] = segment.slice(1).split(':') as [string, string | undefined];
      paramNames.push(name);
      return verb === undefined ? '([^/]+)' : `([^/:]+):${verb}`;
    })
    .join('/');
  return { pattern, regex: new RegExp(`^${source}$`), paramNames };
}

/** GET brings HEAD; OPTIONS is always allowed (a preflight, or a route of its own). */
function allowHeader(compiled: CompiledPath<unknown, unknown>): string {
  const methods = [...compiled.handlers.keys()]
    .filter((m) => m !== 'OPTIONS')
    .flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
  return [...methods, 'OPTIONS'].join(', ');
}

/** Splits a request target into its raw path and raw query (an absolute-form target too). */
export function splitTarget(target: string): { path: string; rawQuery: string } {
  const relative = target.startsWith('/') ? target : target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  const hash = relative.indexOf('#');
  const withoutHash = hash === -1 ? relative : relative.slice(0, hash);
  const mark = withoutHash.indexOf('?');
  if (mark === -1) return { path: withoutHash, rawQuery: '' };
  return { path: withoutHash.slice(0, mark), rawQuery: withoutHash.slice(mark + 1) };
}

/** A matched route's path parameters, percent-decoded; 400 when one is badly encoded. */
export function decodeParams(rawParams: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name in rawParams) {
    const raw = rawParams[name] as string;
    if (!raw.includes('%')) {
      params[name] = raw; // nothing to decode
      continue;
    }
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      throw refuse('bad_percent_encoding', 'path');
    }
  }
  return params;
}

/** A query string parsed strictly: a repeated parameter or a bad percent-encoding is refused (400). */
export function parseQuery(raw: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeQueryPart(eq === -1 ? pair : pair.slice(0, eq));
    if (query.has(name)) throw refuse('repeated_parameter');
    query.set(name, decodeQueryPart(eq === -1 ? '' : pair.slice(eq + 1)));
  }
  return query;
}

function decodeQueryPart(part: string): string {
  if (!part.includes('%') && !part.includes('+')) return part; // nothing to decode
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw refuse('bad_percent_encoding', 'query string');
  }
}
