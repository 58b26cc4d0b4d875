// The RFC 9421 §2.5 signature base, rebuilt by the verifier from the components a signature covers.
// Derived components come from the request as this service sees itself: its public authority and
// scheme, never the Host header, so a signature made for another site never verifies here. Header
// fields are read as §2.1 says; a Dictionary member (`;key=`) is re-serialized as §2.1.2 says. What
// this service does not implement (`@query-param`, `sf`, `bs`, `req`, `tr`) is refused, never skipped.

import { excerpt, HeaderProblem } from './problems.ts';
import { combinedField, type RequestHeaders } from './request-fields.ts';
import { parseDictionary, serializeMember, serializeString, type InnerList } from './structured-fields.ts';

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

/** The covered components of a Signature-Input member; throws an Error naming what cannot be covered here. */
export function parseCoveredComponents(list: InnerList): Component[] {
  const components: Component[] = [];
  const seen = new Set<string>();
  for (const item of list.items) {
    if (item.value.type !== 'string') {
      throw new HeaderProblem('each covered component in Signature-Input must be a string, such as "@authority"');
    }
    const name = item.value.value;
    const component = name.startsWith('@') ? derivedComponent(name, item.params) : fieldComponent(name, item.params);
    const identifier = componentIdentifier(component);
    if (seen.has(identifier)) throw new HeaderProblem(`the component ${excerpt(identifier)} is covered twice`);
    seen.add(identifier);
    components.push(component);
  }
  return components;
}

function derivedComponent(name: string, params: InnerList['params']): Component {
  if (name === '@signature-params')
    throw new HeaderProblem('"@signature-params" must not be among the covered components');
  if (name === '@query-param') throw new HeaderProblem('"@query-param" is not supported here: cover "@query" instead');
  if (name === '@status') throw new HeaderProblem('"@status" is for signed responses, not requests');
  if (!DERIVED.includes(name)) {
    const known = DERIVED.join(' ');
    throw new HeaderProblem(`the derived component ${excerpt(JSON.stringify(name))} is unknown; use one of ${known}`);
  }
  const [param] = params.keys();
  if (param !== undefined) throw new HeaderProblem(`the parameter ${excerpt(param)} is not supported on "${name}"`);
  return { name };
}

function fieldComponent(name: string, params: InnerList['params']): Component {
  if (!FIELD_NAME.test(name)) {
    throw new HeaderProblem(
      `the covered component ${excerpt(JSON.stringify(name))} must be a lower-case header field name`,
    );
  }
  const shown = `"${excerpt(name)}"`;
  let key: string | undefined;
  for (const [param, value] of params) {
    if (param === 'key' && value.type === 'string') key = value.value;
    else if (param === 'key')
      throw new HeaderProblem(`the key parameter of ${shown} must be a string, such as key="sig1"`);
    else if (param === 'req')
      throw new HeaderProblem(`the req parameter of ${shown} is for signed responses, not requests`);
    else throw new HeaderProblem(`the parameter ${excerpt(param)} of ${shown} is not supported here (only key is)`);
  }
  return key === undefined ? { name } : { name, key };
}

/** The identifier as the base and Signature-Input write it: `"name"`, or `"name";key="member"`. */
export function componentIdentifier(component: Component): string {
  const name = serializeString(component.name);
  return component.key === undefined ? name : `${name};key=${serializeString(component.key)}`;
}

/** The value of a covered header field (§2.1, §2.1.2); throws an Error when the request cannot give it. */
export function fieldValue(component: Component, headers: RequestHeaders): string {
  const name = excerpt(component.name);
  const combined = combinedField(headers, component.name);
  if (combined === undefined) throw new HeaderProblem(`the covered header ${name} is missing from the request`);
  if (!FIELD_CONTENT.test(combined)) throw new HeaderProblem(`the covered header ${name} is not plain ASCII`);
  if (component.key === undefined) return combined;
  const member = parseDictionary(combined, `the ${name} header`).get(component.key);
  if (member === undefined) {
    throw new HeaderProblem(`the ${name} header has no member ${excerpt(component.key)}, which the signature covers`);
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
      throw new HeaderProblem(`the derived component ${excerpt(name)} is unknown`); // parseCoveredComponents refused it
  }
}

/** The values of the covered header fields, by identifier; throws a HeaderProblem when one is missing. */
export function fieldValues(covered: readonly Component[], headers: RequestHeaders): Map<string, string> {
  const values = new Map<string, string>();
  for (const component of covered) {
    if (!component.name.startsWith('@')) values.set(componentIdentifier(component), fieldValue(component, headers));
  }
  return values;
}

/**
 * The RFC 9421 §2.5 signature base: a line per covered component in order, then `"@signature-params"`
 * with the Signature-Input member re-serialized; no final newline. Header fields come from `fields`
 * (fieldValues, read once with the signature) or else from the request's headers. Throws a
 * HeaderProblem for a missing value.
 */
export function signatureBase(
  covered: readonly Component[],
  signatureParams: string,
  request: SignedRequestFacts,
  fields: ReadonlyMap<string, string> = fieldValues(covered, request.headers),
): string {
  const lines = covered.map((component) => {
    const value = component.name.startsWith('@')
      ? derivedValue(component.name, request)
      : (fields.get(componentIdentifier(component)) as string);
    if (!FIELD_CONTENT.test(value))
      throw new HeaderProblem(`the value of ${excerpt(component.name)} is not plain ASCII`);
    return `${componentIdentifier(component)}: ${value}`;
  });
  lines.push(`"@signature-params": ${signatureParams}`);
  return lines.join('\n');
}
