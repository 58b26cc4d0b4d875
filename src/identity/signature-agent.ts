// Where a Web Bot Auth signature's keys are published: the Signature-Agent member of the signature's
// label, in either form agents send (a Dictionary keyed by label, the newest text; or the legacy
// single String, what most agents send today, which counts as a one-member Dictionary keyed to the
// signature's label). Its URL gives the agent's identity and the key directory to fetch.

import { combinedField, type Component, type RequestHeaders } from './signature-base.ts';
import { excerpt, parseDictionary, parseItemField, type Item } from './structured-fields.ts';

/** The agent a signature names: the URL it sent, the identity it proves, the JWK Set to fetch. */
export interface SignatureAgent {
  readonly agentUrl: string;
  /** the origin (`https://agent.example`) for a key directory, otherwise the URL without its query */
  readonly identity: string;
  readonly directoryUrl: string;
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
  isAllowedHttpHost: (host: string) => boolean,
): SignatureAgent {
  const field = combinedField(headers, 'signature-agent');
  if (field === undefined) {
    throw new Error('the Signature-Agent header is missing: it names where the signing key is published');
  }
  if (field.startsWith('"')) {
    const url = agentUrl(stringValue(parseItemField(field, 'Signature-Agent')), isAllowedHttpHost);
    return { ...locate(url, 'origin-or-url'), component: { name: 'signature-agent' }, legacy: true };
  }
  const member = parseDictionary(field, 'Signature-Agent').get(label);
  if (member === undefined) {
    throw new Error(`Signature-Agent has no member ${excerpt(label)}, the label of the web-bot-auth signature`);
  }
  if (member.kind !== 'item') {
    throw new Error(`the Signature-Agent member ${excerpt(label)} must be a string holding a URL`);
  }
  const url = agentUrl(stringValue(member), isAllowedHttpHost);
  const component = { name: 'signature-agent', key: label };
  return { ...locate(url, discoveryType(member, label)), component, legacy: false };
}

function stringValue(item: Item): string {
  if (item.value.type !== 'string') throw new Error('a Signature-Agent value must be a string holding a URL');
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
  throw new Error(
    `the Signature-Agent member ${excerpt(label)} has type ${shown}, which this service does not resolve; ` +
      'send a key directory (type=directory) or a JWK Set URL (type=jwks_uri)',
  );
}

function agentUrl(text: string, isAllowedHttpHost: (host: string) => boolean): URL {
  if (text.length > MAX_URL_LENGTH) {
    throw new Error(`the Signature-Agent URL must be at most ${MAX_URL_LENGTH} characters (it has ${text.length})`);
  }
  const url = URL.parse(text);
  if (url === null) throw new Error(`the Signature-Agent value "${excerpt(text)}" is not an absolute URL`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowedHttpHost(url.hostname))) {
    const only = url.protocol === 'http:' ? ' (http is only for hosts the owner of this service allows)' : '';
    throw new Error(`the Signature-Agent URL ${excerpt(text)} must use https${only}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error('the Signature-Agent URL must not hold a user name or password (user:pass@)');
  }
  // agent.example. is the same host as agent.example to DNS, and would be a second identity that looks the same
  if (url.hostname.endsWith('.')) throw new Error('the Signature-Agent URL\'s host must not end with a dot');
  return url;
}

/** An origin's keys are at its well-known directory; any other URL is itself the JWK Set. */
function locate(url: URL, discovery: 'origin-or-url' | 'origin' | 'url'): Omit<SignatureAgent, 'component' | 'legacy'> {
  const namesOrigin = url.pathname === '/' || url.pathname === '';
  if (discovery === 'origin' && !namesOrigin) {
    throw new Error(`the Signature-Agent URL ${excerpt(url.href)} has type=directory, so it must be an origin`);
  }
  if (namesOrigin && discovery !== 'url') {
    return { agentUrl: url.href, identity: url.origin, directoryUrl: `${url.origin}${DIRECTORY_PATH}` };
  }
  const fetched = new URL(url.href);
  fetched.hash = ''; // never sent
  const identity = new URL(fetched.href);
  identity.search = ''; // one identity per JWK Set, however its query is spelled
  return { agentUrl: url.href, identity: identity.href, directoryUrl: fetched.href };
}
