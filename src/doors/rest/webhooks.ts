// The REST door to a conversation's webhook: PUT registers (or replaces) it and shows its
// signing secret once (runtime/webhooks.ts, as MCP's set_webhook), GET shows it without the
// secret, DELETE removes it.

import { removeWebhook, webhookOf } from '../../rules/push.ts';
import type { Reply } from '../../http/context.ts';
import type { RequestContext } from '../context.ts';
import { registerConversationWebhook } from '../../runtime/webhooks.ts';
import type { Conversation } from '../../store/store.ts';
import { BOUNDS } from '../../base/contract.ts';
import { fieldsOf } from '../../rules/validate.ts';

type Authenticated = RequestContext & { conversation: Conversation };

/** PUT /api/v1/conversations/{id}/webhook */
export async function putWebhook(ctx: Authenticated): Promise<Reply> {
  const body = fieldsOf(await ctx.readJson(BOUNDS.bodyBytes), ['url']);
  const { replaced, view } = await registerConversationWebhook(ctx.app, ctx.conversation.id, body.url);
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
