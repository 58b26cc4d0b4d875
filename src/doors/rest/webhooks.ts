// The REST door to a conversation's webhook: PUT registers (or replaces) it and shows its
// signing secret once, GET shows it without the secret, DELETE removes it. The URL passes
// the outbound rules (outbound/guard.ts) before anything is written.

import { registerWebhook, removeWebhook, webhookOf } from '../../rules/push.ts';
import type { Reply, RequestContext } from '../../http/request-handler.ts';
import { checkRegisteredUrl } from '../../outbound/guard.ts';
import { refuse } from '../../refusals/refusal.ts';
import type { Conversation } from '../../store/store.ts';
import { BOUNDS } from '../../base/contract.ts';
import { fieldsOf } from '../../rules/validate.ts';

type Authenticated = RequestContext & { conversation: Conversation };

/** PUT /api/v1/conversations/{id}/webhook */
export async function putWebhook(ctx: Authenticated): Promise<Reply> {
  const body = fieldsOf(await ctx.readJson(BOUNDS.bodyBytes), ['url']);
  if (body.url === undefined) throw refuse('required', 'url', 'the https URL to POST events to');
  if (typeof body.url !== 'string') throw refuse('wrong_type', 'url', 'a string: the https URL to POST events to');
  const url = await checkRegisteredUrl(body.url, ctx.app.outboundPolicy);
  const { replaced, view } = await ctx.app.write(() =>
    registerWebhook(ctx.app.store, ctx.conversation.id, url, ctx.app.now()),
  );
  return { status: replaced ? 200 : 201, body: view };
}

/** GET /api/v1/conversations/{id}/webhook */
export function getWebhook({ app, conversation }: Authenticated): Reply {
  return { status: 200, body: webhookOf(app.store, conversation.id) };
}

/** DELETE /api/v1/conversations/{id}/webhook */
export async function deleteWebhook({ app, conversation }: Authenticated): Promise<Reply> {
  await app.write(() => removeWebhook(app.store, conversation.id));
  return { status: 204, body: '' };
}
