// How the A2A door says no. Every rule's refusal comes from the one catalogue (refusals/refusal.ts):
// here it is only named as A2A names it (an A2A error, or a status of the service's own where
// A2A has none: authentication, authorization, size and rate), worded in A2A's terms, and
// rendered for each binding: a JSON-RPC error, or an HTTP+JSON google.rpc.Status body.

import type { Reply } from '../../http/context.ts';
import { RpcError } from '../jsonrpc.ts';
import { refuse, type Reason, type Refusal } from '../../refusals/refusal.ts';
import type { PROTOCOL_REFUSALS } from '../../refusals/protocol-refusals.ts';
import type { Terms } from '../../refusals/terms.ts';

/** How a door names what a client sends: A2A's fields, where REST names headers. */
export const A2A_TERMS: Terms = {
  key: 'messageId',
  credential: 'the header Authorization: Bearer <accessToken>',
  field: 'field',
  param: 'parameter',
  body: 'request',
  id: 'task id',
  directory: 'the directory (GET /api/v1/directory)',
  token: 'accessToken from the metadata of the task the opening returned',
  pollField: 'metadata.pollAfterSeconds',
};

const A2A_DOMAIN = 'a2a-protocol.org';
const OWN_DOMAIN = 'agent-contact-service';
const TYPE = 'type.googleapis.com/google.rpc.';

/**
 * An A2A error kind: its JSON-RPC code, its HTTP+JSON status, gRPC status name and ErrorInfo
 * reason. A JSON-RPC answer is HTTP 200 but for what A2A has no error for (401, 403, 413,
 * 429, answered with that status), a credential in a URL (400) and an unexpected fault (500).
 */
interface Kind {
  readonly rpc: number;
  readonly http: number;
  readonly status: string;
  readonly reason: string;
  readonly domain: string;
  readonly rpcHttp: number;
}
const kind = (rpc: number, http: number, status: string, reason: string, domain = A2A_DOMAIN): Kind => ({
  rpc,
  http,
  status,
  reason,
  domain,
  rpcHttp: [401, 403, 413, 429, 500, 503].includes(http) ? http : 200,
});

export const KINDS = {
  taskNotFound: kind(-32001, 404, 'NOT_FOUND', 'TASK_NOT_FOUND'),
  unsupportedOperation: kind(-32004, 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'),
  contentTypeNotSupported: kind(-32005, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'),
  versionNotSupported: kind(-32009, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'),
  invalidParams: kind(-32602, 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'),
  credentialInUrl: { ...kind(-32602, 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'), rpcHttp: 400 },
  parseError: kind(-32700, 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'),
  invalidRequest: kind(-32600, 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'),
  // Not A2A errors, so not in A2A's domain: JSON-RPC's own, a path or method no route has.
  methodNotFound: kind(-32601, 404, 'NOT_FOUND', 'METHOD_NOT_FOUND', OWN_DOMAIN),
  notAllowed: { ...kind(-32601, 405, 'UNIMPLEMENTED', 'METHOD_NOT_FOUND', OWN_DOMAIN), rpcHttp: 405 },
  unauthenticated: kind(401, 401, 'UNAUTHENTICATED', 'UNAUTHENTICATED', OWN_DOMAIN),
  blocked: kind(403, 403, 'PERMISSION_DENIED', 'BLOCKED', OWN_DOMAIN),
  foreignOrigin: kind(403, 403, 'PERMISSION_DENIED', 'FORBIDDEN_ORIGIN', OWN_DOMAIN),
  bodyTooLarge: kind(413, 413, 'INVALID_ARGUMENT', 'BODY_TOO_LARGE', OWN_DOMAIN),
  // The reasons below are the A2A contract's own words: DAILY_LIMIT is the daily maximum, OPENING_LIMIT the
  // openings per hour, REQUEST_LIMIT the request rate; metadata.reason carries the catalogue's reason.
  dailyMaximum: kind(429, 429, 'RESOURCE_EXHAUSTED', 'DAILY_LIMIT', OWN_DOMAIN),
  dailyShare: kind(429, 429, 'RESOURCE_EXHAUSTED', 'DAILY_SHARE', OWN_DOMAIN),
  openingsPerHour: kind(429, 429, 'RESOURCE_EXHAUSTED', 'OPENING_LIMIT', OWN_DOMAIN),
  pollTooSoon: kind(429, 429, 'RESOURCE_EXHAUSTED', 'POLL_TOO_SOON', OWN_DOMAIN),
  requestRate: kind(429, 429, 'RESOURCE_EXHAUSTED', 'REQUEST_LIMIT', OWN_DOMAIN),
  unverifiedPool: kind(429, 429, 'RESOURCE_EXHAUSTED', 'UNVERIFIED_POOL', OWN_DOMAIN),
  verifiedPool: kind(429, 429, 'RESOURCE_EXHAUSTED', 'VERIFIED_POOL', OWN_DOMAIN),
  signatureReplayed: kind(401, 401, 'UNAUTHENTICATED', 'SIGNATURE_REPLAYED', OWN_DOMAIN),
  signaturesFull: kind(503, 503, 'UNAVAILABLE', 'SIGNATURES_FULL', OWN_DOMAIN),
  signatureMalformed: { ...kind(400, 400, 'INVALID_ARGUMENT', 'SIGNATURE_MALFORMED', OWN_DOMAIN), rpcHttp: 400 },
  signatureInvalid: kind(401, 401, 'UNAUTHENTICATED', 'SIGNATURE_INVALID', OWN_DOMAIN),
  keyDirectoryUnavailable: kind(503, 503, 'UNAVAILABLE', 'KEY_DIRECTORY_UNAVAILABLE', OWN_DOMAIN),
  outboundBusy: kind(503, 503, 'UNAVAILABLE', 'OUTBOUND_BUSY', OWN_DOMAIN),
  internal: kind(-32603, 500, 'INTERNAL', 'INTERNAL', OWN_DOMAIN),
} as const;
export type KindName = keyof typeof KINDS;

/**
 * A refusal as the A2A door answers it: A2A's kind of error (its code, status and coarse ErrorInfo
 * reason) and the catalogue's refusal, whose reason every answer carries in ErrorInfo.metadata.reason.
 */
export class A2aError {
  readonly kind: KindName;
  readonly reason: Reason;
  readonly message: string;
  readonly headers: Record<string, string>;
  /** a reused messageId: told apart in a google.rpc.BadRequest detail */
  readonly reused: boolean;
  constructor(kindName: KindName, refusal: Refusal, message = refusal.messageIn(A2A_TERMS)) {
    this.kind = kindName;
    this.reason = refusal.reason;
    this.message = message;
    this.headers = refusal.headers;
    this.reused = refusal.reason === 'creation_key_used' || refusal.reason === 'follow_up_key_conflict';
  }
}

/** A refusal of the A2A door's own protocol (version, parts, params, operations), with its sentence. */
export function a2aRefusal(reason: ProtocolReason, sentence: string): A2aError {
  return new A2aError(BY_REASON[reason] ?? 'invalidParams', refuse(reason, sentence));
}
type ProtocolReason = keyof typeof PROTOCOL_REFUSALS;

/** Which A2A error each refusal of the catalogue is; any other is invalid params. */
const BY_REASON: Partial<Record<Reason, KindName>> = {
  credential_in_url: 'credentialInUrl',
  no_credential: 'unauthenticated',
  unknown_credential: 'unauthenticated',
  other_conversation: 'taskNotFound', // never reveal another conversation's task
  bad_conversation_id: 'taskNotFound',
  expired: 'taskNotFound',
  blocked: 'blocked',
  forbidden_origin: 'foreignOrigin',
  forbidden_host: 'foreignOrigin',
  body_too_large: 'bodyTooLarge',
  not_json_content: 'contentTypeNotSupported',
  not_json: 'parseError',
  not_utf8: 'parseError',
  conversation_closed: 'unsupportedOperation',
  no_push_config: 'taskNotFound',
  no_route: 'methodNotFound',
  method_not_allowed: 'notAllowed',
  daily_maximum: 'dailyMaximum',
  conversation_share: 'dailyShare',
  address_share: 'dailyShare',
  too_many_openings: 'openingsPerHour',
  poll_too_soon: 'pollTooSoon',
  too_many_requests: 'requestRate',
  agent_share: 'dailyShare',
  unverified_pool: 'unverifiedPool',
  verified_pool: 'verifiedPool',
  signature_replayed: 'signatureReplayed',
  signatures_full: 'signaturesFull',
  sender_blocked: 'blocked',
  signature_malformed: 'signatureMalformed',
  signature_invalid: 'signatureInvalid',
  key_directory_unavailable: 'keyDirectoryUnavailable',
  outbound_busy: 'outboundBusy',
  internal: 'internal',
  database_busy: 'internal',
  database_unavailable: 'internal',
  invalid_request: 'invalidRequest',
  no_method: 'methodNotFound',
  protocol_version: 'versionNotSupported',
  unsupported_part: 'contentTypeNotSupported',
  unsupported_operation: 'unsupportedOperation',
};

/**
 * Any thrown value as an A2A error: the door's own, a JSON-RPC framing error, or else the refusal
 * `refusalOf` makes of it (which logs what was unexpected), named as A2A names it.
 */
export function a2aErrorOf(err: unknown, refusalOf: (err: unknown) => Refusal): A2aError {
  if (err instanceof A2aError) return err;
  if (err instanceof RpcError) return fromRpcError(err);
  return fromRefusal(refusalOf(err));
}

function fromRefusal(refusal: Refusal): A2aError {
  const taskNotFound: Partial<Record<Reason, string>> = {
    expired: 'Task not found: its credential has expired; open a new conversation to continue.',
    // never says whether the id is another conversation's
    other_conversation: 'Task not found: a credential opens only its own task; send that task id, or none.',
    bad_conversation_id: 'Task not found: a credential opens only its own task; send that task id, or none.',
  };
  const message = taskNotFound[refusal.reason] ?? refusal.messageIn(A2A_TERMS);
  return new A2aError(BY_REASON[refusal.reason] ?? 'invalidParams', refusal, message);
}

function fromRpcError(err: RpcError): A2aError {
  return new A2aError(BY_REASON[err.refusal.reason] ?? 'invalidParams', err.refusal, err.error.message);
}

/**
 * The error's details: ErrorInfo always, A2A's coarse reason beside the catalogue's in its metadata;
 * BadRequest for a reused messageId; RetryInfo with Retry-After.
 */
function details(error: A2aError): object[] {
  const { reason, domain } = KINDS[error.kind];
  const found: object[] = [{ '@type': `${TYPE}ErrorInfo`, reason, domain, metadata: { reason: error.reason } }];
  if (error.reused) {
    const violation = { field: 'message.messageId', description: error.message, reason: 'MESSAGE_ID_REUSED' };
    found.push({ '@type': `${TYPE}BadRequest`, fieldViolations: [violation] });
  }
  const retry = error.headers['retry-after'];
  if (retry !== undefined) found.push({ '@type': `${TYPE}RetryInfo`, retryDelay: `${retry}s` });
  return found;
}

/** A JSON-RPC error answer, with the HTTP status its kind gives it. */
export function rpcErrorReply(id: string | number | null, error: A2aError): Reply {
  const { rpc, rpcHttp } = KINDS[error.kind];
  const body = { jsonrpc: '2.0', id, error: { code: rpc, message: error.message, data: details(error) } };
  return { status: rpcHttp, body, headers: passedOn(error) };
}

/** HTTP+JSON: the status, and `{"error": {"code", "status", "message", "details"}}`. */
export function httpErrorReply(error: A2aError): Reply {
  const { http, status } = KINDS[error.kind];
  const body = { error: { code: http, status, message: error.message, details: details(error) } };
  return { status: http, body, headers: passedOn(error), contentType: 'application/a2a+json' };
}

/** The headers a refusal carries that a client acts on, and `Connection: close` after a body left unread. */
function passedOn(error: A2aError): Record<string, string> {
  const kept = ['retry-after', 'www-authenticate', 'allow', 'connection'];
  return Object.fromEntries(Object.entries(error.headers).filter(([name]) => kept.includes(name)));
}
