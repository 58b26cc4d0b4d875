// A conversation's webhook, registered the same way by every door that offers one (REST's PUT
// …/webhook, MCP's set_webhook): the `url` field's form, then the outbound rules with its host's
// lookup (outbound/guard.ts), then the write, group-committed like every other.

import { checkRegisteredUrl, type OutboundPolicy } from '../outbound/guard.ts';
import { registerWebhook } from '../rules/push.ts';
import { refuse } from '../refusals/refusal.ts';
import type { Store } from '../store/store.ts';

const WHAT = 'the https URL to POST events to';

/** What registering needs of the app. */
interface Registering {
  readonly store: Store;
  readonly outboundPolicy: OutboundPolicy;
  now(): number;
  write<T>(rule: () => T): Promise<T>;
}

/** Registers (or replaces) the webhook: whether it replaced one, and the webhook with its secret, shown once. */
export async function registerConversationWebhook(app: Registering, conversationId: string, url: unknown) {
  if (url === undefined) throw refuse('required', 'url', WHAT);
  if (typeof url !== 'string') throw refuse('wrong_type', 'url', `a string: ${WHAT}`);
  const checked = await checkRegisteredUrl(url, app.outboundPolicy);
  return app.write(() => registerWebhook(app.store, conversationId, checked, app.now()));
}
