// Where a Web Bot Auth signature's keys are published: the Signature-Agent member of the signature's
// label, in either form agents send (a Dictionary keyed by label, the newest text; or the legacy
// single String, what most agents send today, which counts as a one-member Dictionary keyed to the
// signature's label). Its URL gives the agent's identity and the key directory to fetch.

import { excerpt, HeaderProblem } from './problems.ts';
import { combinedField, type RequestHeaders } from './request-fields.ts';
import type { Component } from './signature-base.ts';
import { parseDictionary, parseItemField, type Item } from './structured-fields.ts';

/** The agent a signature names: the URL it sent, the identity it proves, the JWK Set to fetch. */
export interface SignatureAgent {
  readonly agentUrl: string;
  /** the origin (`https://agent.example`) for a key directory, otherwise the URL without its query */
  readonly identity: string;
  readonly keyDirectoryUrl: string;
  /** how the signature must cover the member: `"signature-agent";key="<label>"`, or plain for the legacy form */
  readonly component: Component;
  readonly legacy: boolean;
}

const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
const MAX_URL_LENGTH = 2048; // the usual practical limit of browsers and servers, as for every URL an agent sends

/** The Signature-Agent member of `label`; throws an Error naming what is wrong. */
export function readSignatureAgent(
  headers: RequestHeaders,
  label: string,
  isAllowedHttp: (url: URL) => boolean,
): SignatureAgent {
  const field = combinedField(headers, 'signature-agent');
  if (field === undefined) {
    throw new HeaderProblem('the Signature-Agent header is missing: it names where the signing key is published');
  }
  if (field.startsWith('"')) {
    const url = agentUrl(stringValue(parseItemField(field, 'Signature-Agent')), isAllowedHttp);
    return { ...locate(url, 'origin-or-url'), component: { name: 'signature-agent' }, legacy: true };
  }
  const member = parseDictionary(field, 'Signature-Agent').get(label);
  if (member === undefined) {
    throw new HeaderProblem(`Signature-Agent has no member ${excerpt(label)}, the label of the web-bot-auth signature`);
  }
  if (member.kind !== 'item') {
    throw new HeaderProblem(`the Signature-Agent member ${excerpt(label)} must be a string holding a URL`);
  }
  const url = agentUrl(stringValue(member), isAllowedHttp);
  const component = { name: 'signature-agent', key: label };
  return { ...locate(url, discoveryType(member, label)), component, legacy: false };
}

function stringValue(item: Item): string {
  if (item.value.type !== 'string') throw new HeaderProblem('a Signature-Agent value must be a string holding a URL');
  return item.value.value;
}

/**
 * The newest text names the discovery with a `type` parameter: `directory` (an origin, the default) or
 * `jwks_uri` (a JWK Set's URL). Without it, the path decides. Other types (`cimd`) are not supported.
 */
function discoveryType(member: Item, label: string): 'origin-or-url' | 'origin' | 'url' {
  const type = member.params.get('type');
  if (type === undefined) return 'origin-or-url';
  if (type.type === 'token' && type.value === 'directory') return 'origin';
  if (type.type === 'token' && type.value === 'jwks_uri') return 'url';
  const shown = type.type === 'token' || type.type === 'string' ? excerpt(type.value) : type.type;
  throw new HeaderProblem(
    `the Signature-Agent member ${excerpt(label)} has type ${shown}, which this service does not resolve; ` +
      'send a key directory (type=directory) or a JWK Set URL (type=jwks_uri)',
  );
}

function agentUrl(text: string, isAllowedHttp: (url: URL) => boolean): URL {
  if (text.length > MAX_URL_LENGTH) {
    throw new HeaderProblem(
      `the Signature-Agent URL must be at most ${MAX_URL_LENGTH} characters (it has ${text.length})`,
    );
  }
  const url = URL.parse(text);
  if (url === null) throw new HeaderProblem(`the Signature-Agent value "${excerpt(text)}" is not an absolute URL`);
  // http to a host and port the owner did not allow can never be fetched: a mistake to fix, not to retry
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowedHttp(url))) {
    const allowed = ' (http is only for the hosts and ports the owner of this service allows)';
    const only = url.protocol === 'http:' ? allowed : '';
    throw new HeaderProblem(`the Signature-Agent URL ${excerpt(text)} must use https${only}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new HeaderProblem('the Signature-Agent URL must not hold a user name or password (user:pass@)');
  }
  // agent.example. is the same host as agent.example to DNS, and would be a second identity that looks the same
  if (url.hostname.endsWith('.')) throw new HeaderProblem("the Signature-Agent URL's host must not end with a dot");
  return url;
}

/**
 * An origin's keys are at its well-known key directory; any other URL is itself the JWK Set. One key
 * directory is one identity however it is spelled: the URL is normalized first (scheme and host lower
 * case and the default port dropped, as URL does; unreserved characters decoded, other escapes in upper
 * case; no trailing `/`; no query or fragment), and the explicit well-known URL is its origin.
 */
function locate(url: URL, discovery: 'origin-or-url' | 'origin' | 'url'): Omit<SignatureAgent, 'component' | 'legacy'> {
  const normal = new URL(url.origin);
  normal.pathname = normalPath(url.pathname);
  const namesOrigin = normal.pathname === '/' || normal.pathname === DIRECTORY_PATH;
  if (discovery === 'origin' && !namesOrigin) {
    throw new HeaderProblem(`the Signature-Agent URL ${excerpt(url.href)} has type=directory, so it must be an origin`);
  }
  const identity = namesOrigin ? normal.origin : normal.href;
  // type=jwks_uri fetches the URL itself, even the origin's root; otherwise an origin's keys are well-known
  const keyDirectoryUrl = namesOrigin && discovery !== 'url' ? `${normal.origin}${DIRECTORY_PATH}` : normal.href;
  // Percent-encoding can triple a URL: the one fetched is bounded too, or the outbound guard would refuse it
  if (keyDirectoryUrl.length > MAX_URL_LENGTH) {
    const length = keyDirectoryUrl.length;
    throw new HeaderProblem(
      `the Signature-Agent URL must be at most ${MAX_URL_LENGTH} characters once percent-encoded (it has ${length})`,
    );
  }
  return { agentUrl: url.href, identity, keyDirectoryUrl };
}

const UNRESERVED = /^[A-Za-z0-9._~-]$/; // RFC 3986 §2.3: their escapes mean the same URL

/** A path with unreserved characters unescaped, other escapes in upper case, and no trailing `/`. */
function normalPath(path: string): string {
  const unescaped = path.replace(/%([0-9A-Fa-f]{2})/g, (escape: string, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(character) ? character : escape.toUpperCase();
  });
  return unescaped.replace(/\/+$/, '') || '/';
}
