// What a route's handler gets and gives, and what applies to every answer of its path: the contract
// between the HTTP layer (request-handler.ts, the only code that touches `res`) and the doors.

import type { IncomingMessage } from 'node:http';
import type { Client } from '../runtime/client-writes.ts';
import type { Headers } from '../refusals/entry.ts';
import type { Refusal } from '../refusals/refusal.ts';
import type { App } from '../runtime/app.ts';
import type { BodyOptions } from './body.ts';
import type { Door } from './origins.ts';

/** What a handler gets: the request as parsed so far, and the app it runs in. */
export interface RequestContext {
  readonly app: App;
  readonly req: IncomingMessage;
  readonly rawQuery: string;
  readonly params: Readonly<Record<string, string>>;
  readonly clientAddress: string;
  /** Who writes: the address, and the agent a Web Bot Auth signature proved (the signed guard sets it). */
  readonly client: Client;
  /** A signature's refusal, handed on to a door that answers it in its own protocol (guards.ts signed). */
  readonly signatureRefusal?: Refusal;
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
export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

/** What applies to every answer of a path, success or refusal; each route's line in routes.ts shows it. */
export interface Policy {
  /** private: `Cache-Control: no-store` (conversation data, or a credential); public: the handler decides */
  readonly cache: 'public' | 'private';
  /** which browsers may read the answers: any origin, or only the origins a protocol door allows */
  readonly cors: 'any' | Door;
  /** whether a request takes from the per-address request limit (not /health, so monitors can poll it) */
  readonly requestLimit: boolean;
  /** how a refusal is answered on this path; the REST error body when absent (the protocol doors have their own) */
  readonly refusalReply?: (refusal: Refusal, id: RpcId | null) => Reply;
  /** a JSON-RPC endpoint: a refusal echoes the request's id whenever its body can be read as JSON-RPC */
  readonly jsonRpc?: boolean;
}

/** A JSON-RPC request's id. */
export type RpcId = string | number;

export type LogFields = Record<string, string | number | boolean>;
