// What a door's handler gets: the HTTP layer's request context with this service's app, and, past
// the signed guard (service/guards.ts), who writes. The HTTP layer itself knows nothing of the app.

import type { RequestContext as HttpRequestContext, Handler as HttpHandler } from '../http/context.ts';
import type { Refusal } from '../refusals/refusal.ts';
import type { App } from '../runtime/app.ts';
import type { Client } from '../runtime/client-writes.ts';

export type RequestContext = HttpRequestContext<App>;
export type Handler = HttpHandler<App>;

/** A request past the signed guard: its client, and a signature's refusal a door answers in its own words. */
export interface ClientContext extends RequestContext {
  /** Who writes: the address, and the agent a Web Bot Auth signature proved (null: unsigned). */
  readonly client: Client;
  /** A signature's refusal, handed on to a door that answers it in its own protocol (the MCP door). */
  readonly signatureRefusal?: Refusal;
}
