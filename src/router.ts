// A tiny router: patterns compiled once, matched by a linear scan.
// `:name` matches one non-empty path segment; everything else matches exactly.

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

  function allowHeader(compiled: CompiledPath<H>): string {
    const methods = [...compiled.handlers.keys()].flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
    return [...methods, 'OPTIONS'].join(', ');
  }

  /** `captured`: the regex match, whose groups are the params in order. */
  function matchOn(compiled: CompiledPath<H>, method: string, captured: ArrayLike<string | undefined>): RouteMatch<H> {
    const handler = compiled.handlers.get(method === 'HEAD' ? 'GET' : method);
    if (!handler) return { kind: 'method-not-allowed', pattern: compiled.pattern, allow: allowHeader(compiled) };
    const params: Record<string, string> = {};
    for (let i = 0; i < compiled.paramNames.length; i++) params[compiled.paramNames[i] as string] = captured[i + 1] as string;
    return { kind: 'found', handler, pattern: compiled.pattern, params };
  }

  const staticPaths = new Map(paths.filter((p) => p.paramNames.length === 0).map((p) => [p.pattern, p]));
  const paramPaths = paths.filter((p) => p.paramNames.length > 0);

  return {
    match(method: string, pathname: string): RouteMatch<H> {
      const exact = staticPaths.get(pathname);
      if (exact) return matchOn(exact, method, []);
      for (const compiled of paramPaths) {
        const found = compiled.regex.exec(pathname);
        if (found) return matchOn(compiled, method, found);
      }
      return { kind: 'not-found' };
    },
  };
}
