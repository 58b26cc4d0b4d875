// What a route's handler gets and gives, and what applies to every answer of its path: the contract
// between the HTTP layer (request-handler.ts, the only code that touches `res`) and the doors. The
// HTTP layer knows of the service it serves only what HttpService names; runtime/app.ts builds one.

import type { IncomingMessage } from 'node:http';
import type { RunningConfig } from '../base/config.ts';
import type { Log } from '../base/log.ts';
import type { Headers } from '../refusals/entry.ts';
import type { Refusal } from '../refusals/refusal.ts';
import type { BodyOptions } from './body.ts';
import type { Door } from './origins.ts';

/** What the HTTP layer needs of the service it serves: settings, log, clock, request rate, fault log. */
export interface HttpService {
  readonly config: RunningConfig;
  readonly log: Log;
  now(): number;
  /** The request rate (rules/rates.ts): takes one request of the client at `address`; 0, or the seconds to wait. */
  readonly rates: { readonly requests: { take(address: string, now: number): number } };
  /** An unexpected error, logged once with the request id its client got. */
  logUnexpected(requestId: string, err: unknown, extra?: Record<string, string>): void;
}

/** What a handler gets: the request as parsed so far, and the service it runs in. */
export interface RequestContext<A extends HttpService = HttpService> {
  readonly app: A;
  readonly req: IncomingMessage;
  readonly rawQuery: string;
  readonly params: Readonly<Record<string, string>>;
  readonly clientAddress: string;
  readonly requestId: string;
  /** The JSON body, read under `maxBytes`: 415, then 413, then 400. */
  readJson(maxBytes: number, options?: BodyOptions): Promise<unknown>;
  /** The id of the JSON-RPC request in the body, read now if it was not yet (a small one); null when none. */
  rpcId(): Promise<RpcId | null>;
  /** Adds fields to this request's log line (a tool's name, a protocol error); never a client's text. */
  note(fields: LogFields): void;
  /** Aborted when the client goes away before its answer: a held request then stops waiting. */
  whenGone(): AbortSignal;
  /** Any thrown value as the refusal its client gets; what was not a refusal is logged once, with `extra`. */
  refusalOf(err: unknown, extra?: Record<string, string>): Refusal;
}

export interface Reply {
  readonly status: number;
  /** text or bytes as they are, or a value to send as JSON */
  readonly body: string | Buffer | object;
  readonly headers?: Headers;
  /** application/json unless said otherwise */
  readonly contentType?: string;
}

/** A handler answers with a reply or throws the refusal. */
export type Handler<A extends HttpService = HttpService> = (ctx: RequestContext<A>) => Reply | Promise<Reply>;

/** What applies to every answer of a path, success or refusal; each route's line in routes.ts shows it. */
export interface Policy {
  /** private: `Cache-Control: no-store` (conversation data, or a credential); public: the handler decides */
  readonly cache: 'public' | 'private';
  /** which browsers may read the answers: any origin, or only the origins a protocol door allows */
  readonly cors: 'any' | Door;
  /** whether a request takes from the per-address request rate (not /health, so monitors can poll it) */
  readonly requestRate: boolean;
  /** how a refusal is answered on this path; the REST error body when absent (the protocol doors have their own) */
  readonly refusalReply?: (refusal: Refusal, id: RpcId | null) => Reply;
  /** a JSON-RPC endpoint: a refusal echoes the request's id whenever its body can be read as JSON-RPC */
  readonly jsonRpc?: boolean;
}

/** A JSON-RPC request's id. */
export type RpcId = string | number;

export type LogFields = Record<string, string | number | boolean>;
