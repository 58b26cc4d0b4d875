// A tiny router: patterns compiled once, matched by a linear scan. `:name` matches one
// non-empty path segment (percent-decoded); everything else matches exactly.

import { refuse } from './refusals.ts';

export interface Route<H> {
  readonly method: string;
  readonly pattern: string;
  readonly handler: H;
}
interface CompiledPath<H> {
  readonly pattern: string;
  readonly regex: RegExp;
  readonly paramNames: readonly string[];
  readonly handlers: Map<string, H>;
}

export type RouteMatch<H> =
  | { readonly kind: 'found'; readonly handler: H; readonly pattern: string; readonly params: Record<string, string> }
  | { readonly kind: 'method-not-allowed'; readonly pattern: string; readonly allow: string }
  | { readonly kind: 'not-found' };

/** Compiles a route table; `match` answers found, method-not-allowed (with Allow) or not-found. */
export function createRouter<H>(routes: readonly Route<H>[]) {
  const paths: CompiledPath<H>[] = [];
  for (const route of routes) {
    let compiled = paths.find((p) => p.pattern === route.pattern);
    if (!compiled) {
      const paramNames: string[] = [];
      const source = route.pattern
        .split('/')
        .map((segment) => {
          if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          paramNames.push(segment.slice(1));
          return '([^/]+)';
        })
        .join('/');
      compiled = { pattern: route.pattern, regex: new RegExp(`^${source}$`), paramNames, handlers: new Map() };
      paths.push(compiled);
    }
    compiled.handlers.set(route.method, route.handler);
  }

  /** GET brings HEAD; OPTIONS is always allowed (a preflight, or a route of its own). */
  function allowHeader(compiled: CompiledPath<H>): string {
    const methods = [...compiled.handlers.keys()]
      .filter((m) => m !== 'OPTIONS')
      .flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
    return [...methods, 'OPTIONS'].join(', ');
  }

  return {
    match(method: string, pathname: string): RouteMatch<H> {
      for (const compiled of paths) {
        const found = compiled.regex.exec(pathname);
        if (!found) continue;
        const handler = compiled.handlers.get(method === 'HEAD' ? 'GET' : method);
        if (!handler) return { kind: 'method-not-allowed', pattern: compiled.pattern, allow: allowHeader(compiled) };
        const params: Record<string, string> = {};
        compiled.paramNames.forEach((name, i) => (params[name] = decodePathSegment(found[i + 1] as string)));
        return { kind: 'found', handler, pattern: compiled.pattern, params };
      }
      return { kind: 'not-found' };
    },
  };
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw refuse('badPercentEncoding', 'path');
  }
}
