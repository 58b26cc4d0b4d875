// The RFC 9421 §2.5 signature base, rebuilt by the verifier from the components a signature covers.
// Derived components come from the request as this service sees itself: its public authority and
// scheme, never the Host header, so a signature made for another site never verifies here. Header
// fields are read as §2.1 says; a Dictionary member (`;key=`) is re-serialized as §2.1.2 says. What
// this service does not implement (`@query-param`, `sf`, `bs`, `req`, `tr`) is refused, never skipped.

import {
  excerpt,
  parseDictionary,
  serializeMember,
  serializeString,
  type InnerList,
} from './structured-fields.ts';

/** Header values by lower-case name, as Node's `req.headers` (or `req.headersDistinct`) holds them. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The request as this service judges it. */
export interface SignedRequestFacts {
  readonly method: string;
  /** the service's public authority (lower-case host, port only when not the scheme's default), never Host */
  readonly authority: string;
  /** the service's public scheme */
  readonly scheme: 'http' | 'https';
  /** the absolute path as received, percent-encoding untouched */
  readonly path: string;
  /** `?` and the query as received, or '' when the request target has none */
  readonly query: string;
  readonly headers: RequestHeaders;
}

/** One covered component: a derived component (`@…`) or a lower-case header field, maybe one member of it. */
export interface Component {
  readonly name: string;
  /** the Dictionary member the component selects (`"signature-agent";key="sig1"`) */
  readonly key?: string;
}

const DERIVED = ['@method', '@authority', '@target-uri', '@path', '@query', '@scheme', '@request-target'];
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/; // a field name (an HTTP token), lower-case as §2.1 requires
const FIELD_CONTENT = /^[\t\x20-\x7e]*$/; // §2.5: the base is ASCII, without line breaks
const OBS_FOLD = /[ \t]*\r?\n[ \t]+/g; // HTTP/1.1 obsolete line folding, replaced by one space (§2.1)

/** The covered components of a Signature-Input member; throws an Error naming what cannot be covered here. */
export function parseCoveredComponents(list: InnerList): Component[] {
  const components: Component[] = [];
  const seen = new Set<string>();
  for (const item of list.items) {
    if (item.value.type !== 'string') {
      throw new Error('each covered component in Signature-Input must be a string, such as "@authority"');
    }
    const name = item.value.value;
    const component = name.startsWith('@') ? derivedComponent(name, item.params) : fieldComponent(name, item.params);
    const identifier = componentIdentifier(component);
    if (seen.has(identifier)) throw new Error(`the component ${excerpt(identifier)} is covered twice`);
    seen.add(identifier);
    components.push(component);
  }
  return components;
}

function derivedComponent(name: string, params: InnerList['params']): Component {
  if (name === '@signature-params') throw new Error('"@signature-params" must not be among the covered components');
  if (name === '@query-param') throw new Error('"@query-param" is not supported here: cover "@query" instead');
  if (name === '@status') throw new Error('"@status" is for signed responses, not requests');
  if (!DERIVED.includes(name)) {
    const known = DERIVED.join(' ');
    throw new Error(`the derived component ${excerpt(JSON.stringify(name))} is unknown; use one of ${known}`);
  }
  const [param] = params.keys();
  if (param !== undefined) throw new Error(`the parameter ${excerpt(param)} is not supported on "${name}"`);
  return { name };
}

function fieldComponent(name: string, params: InnerList['params']): Component {
  if (!FIELD_NAME.test(name)) {
    throw new Error(`the covered component ${excerpt(JSON.stringify(name))} must be a lower-case header field name`);
  }
  const shown = `"${excerpt(name)}"`;
  let key: string | undefined;
  for (const [param, value] of params) {
    if (param === 'key' && value.type === 'string') key = value.value;
    else if (param === 'key') throw new Error(`the key parameter of ${shown} must be a string, such as key="sig1"`);
    else if (param === 'req') throw new Error(`the req parameter of ${shown} is for signed responses, not requests`);
    else throw new Error(`the parameter ${excerpt(param)} of ${shown} is not supported here (only key is)`);
  }
  return key === undefined ? { name } : { name, key };
}

/** The identifier as the base and Signature-Input write it: `"name"`, or `"name";key="member"`. */
export function componentIdentifier(component: Component): string {
  const name = serializeString(component.name);
  return component.key === undefined ? name : `${name};key=${serializeString(component.key)}`;
}

/** A header's values combined as §2.1 says (each trimmed, unfolded, joined by ", "), or undefined when absent. */
export function combinedField(headers: RequestHeaders, name: string): string | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  const values = typeof raw === 'string' ? [raw] : raw;
  if (values.length === 0) return undefined;
  return values.map((value) => value.trim().replace(OBS_FOLD, ' ')).join(', ');
}

/** The value of a covered header field (§2.1, §2.1.2); throws an Error when the request cannot give it. */
export function fieldValue(component: Component, headers: RequestHeaders): string {
  const name = excerpt(component.name);
  const combined = combinedField(headers, component.name);
  if (combined === undefined) throw new Error(`the covered header ${name} is missing from the request`);
  if (!FIELD_CONTENT.test(combined)) throw new Error(`the covered header ${name} is not plain ASCII`);
  if (component.key === undefined) return combined;
  const member = parseDictionary(combined, `the ${name} header`).get(component.key);
  if (member === undefined) {
    throw new Error(`the ${name} header has no member ${excerpt(component.key)}, which the signature covers`);
  }
  return serializeMember(member);
}

function derivedValue(name: string, request: SignedRequestFacts): string {
  const path = request.path === '' ? '/' : request.path; // §2.2.6: an empty path is "/"
  switch (name) {
    case '@method':
      return request.method;
    case '@authority':
      return request.authority;
    case '@scheme':
      return request.scheme;
    case '@target-uri':
      return `${request.scheme}://${request.authority}${path}${request.query}`;
    case '@request-target':
      return `${path}${request.query}`;
    case '@path':
      return path;
    case '@query':
      return request.query === '' ? '?' : request.query; // §2.2.7: no query is "?"
    default:
      throw new Error(`the derived component ${excerpt(name)} is unknown`); // parseCoveredComponents refused it
  }
}

/**
 * The RFC 9421 §2.5 signature base: a line per covered component in order, then `"@signature-params"`
 * with the Signature-Input member re-serialized; no final newline. Throws an Error for a missing value.
 */
export function signatureBase(
  covered: readonly Component[],
  signatureParams: string,
  request: SignedRequestFacts,
): string {
  const lines = covered.map((component) => {
    const value = component.name.startsWith('@')
      ? derivedValue(component.name, request)
      : fieldValue(component, request.headers);
    if (!FIELD_CONTENT.test(value)) throw new Error(`the value of ${excerpt(component.name)} is not plain ASCII`);
    return `${componentIdentifier(component)}: ${value}`;
  });
  lines.push(`"@signature-params": ${signatureParams}`);
  return lines.join('\n');
}
