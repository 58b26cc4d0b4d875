// What the MCP tools that manage a conversation say of themselves: closing it when done, and a
// webhook for being told of the owner's writes, as REST's POST …/close and …/webhook do.

import { SCHEMAS } from '../../openapi/schemas.ts';
import { CREDENTIAL, input, READS, tool } from './tool-schemas.ts';

const CHANGES = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const ENDS = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const WITH_CREDENTIAL = ['conversation_id', 'access_token'];
const URL_ARGUMENT = {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'The https URL to POST events to; it must resolve to public addresses.',
};

/** Closing a conversation, and its webhook. */
export function managingTools() {
  return [
    {
      ...tool('close_conversation', 'Close the conversation', ENDS, SCHEMAS.Conversation),
      description:
        'Close your conversation once you are done: it stays readable, takes no new messages (send_message is ' +
        'then refused), and the owner sees that you closed it (and may still reply or reopen it). Calling it ' +
        'again answers the conversation as it is. Returns the conversation, with closed_by "agent".',
      inputSchema: input(CREDENTIAL, WITH_CREDENTIAL),
    },
    {
      ...tool('set_webhook', 'Be told of replies by webhook', CHANGES, SCHEMAS.WebhookCreated),
      description:
        'Register a URL that is POSTed to when the owner replies, closes or reopens your conversation: thin ' +
        'events signed as Standard Webhooks says (verify them with the secret), delivered at least once ' +
        '(deduplicate by webhook-id), naming what changed, never the text: read it with read_messages. One ' +
        'webhook per conversation; calling again replaces it with a new secret. The secret is shown only in ' +
        'this result: store it. The URL must use https and resolve to public addresses.',
      inputSchema: input({ ...CREDENTIAL, url: URL_ARGUMENT }, [...WITH_CREDENTIAL, 'url']),
    },
    {
      ...tool('get_webhook', 'Read the webhook', READS, SCHEMAS.Webhook),
      description:
        "Your conversation's webhook without its secret, and how its deliveries went (last attempt, outcome, " +
        'failures in a row, events waiting). Refused when none is registered.',
      inputSchema: input(CREDENTIAL, WITH_CREDENTIAL),
    },
    {
      ...tool('delete_webhook', 'Remove the webhook', ENDS, { type: 'object', properties: {} }),
      description: "Remove your conversation's webhook and its undelivered events. Refused when none is registered.",
      inputSchema: input(CREDENTIAL, WITH_CREDENTIAL),
    },
  ];
}
