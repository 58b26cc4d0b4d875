// The OpenAPI document's conversation operations: opening, reading, following up, polling
// (with its wait), the webhook registration, and the webhook events themselves.

import { json, ref } from './schemas.ts';
import { BOUNDS } from '../base/contract.ts';
import { after, EVERY_ERROR, id, integerParameter, key, operation } from './operations.ts';

const QUESTION_NOTE =
  'With choices and/or reply_by the message is a question: the conversation and updates carry it as `question` ' +
  "with its state, and the owner's answer carries `choice` ({for_seq, index, text}); none arrives after reply_by.";

export const CONVERSATION_PATHS = {
  '/api/v1/conversations': {
    post: operation('createConversation', {
      summary: 'Open a conversation',
      tag: 'conversations',
      parameters: [key],
      body: 'CreateConversation',
      scopes: ['post', 'open'],
      signed: true,
      description:
        'The credential is returned only in this response. A retry with the same key gets 409 and no ' +
        'credential; when the response was lost, start again with a new key (a random UUID). Counts toward ' +
        "the shared daily maximum and its sender's share of it: a verified stranger's site's and the verified " +
        "pool, or unsigned the address's and the unverified pool (a contact of the owner's, neither). A " +
        'signature authorizes one write: another write carrying it gets 401 signature_replayed. ' +
        QUESTION_NOTE,
      ok: {
        '201': { description: 'Opened; store the id and access_token now.', content: json(ref('CreationResult')) },
      },
    }),
  },
  '/api/v1/conversations/{id}': {
    get: operation('getConversation', {
      summary: 'Conversation metadata',
      tag: 'conversations',
      bearer: true,
      parameters: [id],
      ok: { '200': { description: 'The conversation.', content: json(ref('Conversation')) } },
      scopes: ['bearer'],
      signed: true,
    }),
  },
  '/api/v1/conversations/{id}/messages': {
    get: operation('listMessages', {
      summary: 'History, in sequence order',
      tag: 'conversations',
      bearer: true,
      scopes: ['bearer', 'history'],
      signed: true,
      parameters: [
        id,
        after('The last seq already read; 0 initially.'),
        integerParameter('limit', 1, BOUNDS.historyLimitMax, BOUNDS.historyLimitDefault),
      ],
      ok: {
        '200': {
          description:
            `Messages with seq > after, ascending: at most limit, and at most ${BOUNDS.pageTextBytes / 1024} KiB of ` +
            'message text (a page of long messages stops early with has_more true; read on from next_after).',
          content: json(ref('History')),
        },
      },
    }),
    post: operation('postMessage', {
      summary: 'Send a follow-up',
      tag: 'conversations',
      bearer: true,
      parameters: [id, key],
      body: 'FollowUp',
      scopes: ['bearer', 'post', 'follow'],
      signed: true,
      description:
        'A new Idempotency-Key per message. The same key with the identical body answers 200 with the ' +
        'original message and duplicate true; with a different body, 409. Counts toward the day and toward ' +
        "the conversation's share and its sender's (a verified stranger's site's and the verified pool, or " +
        "unsigned the address's and the unverified pool; a contact's, neither). The same key must carry the same " +
        `choices and reply_by too. ${QUESTION_NOTE}`,
      ok: {
        '201': { description: 'Stored.', content: json(ref('FollowUpResult')) },
        '200': {
          description: 'An identical retry: the original message, stored once.',
          content: json(ref('FollowUpResult')),
        },
      },
    }),
  },
  '/api/v1/conversations/{id}/updates': {
    get: operation('getUpdates', {
      summary: 'Reply signal, at once or after waiting for the owner',
      tag: 'conversations',
      bearer: true,
      scopes: ['bearer', 'updates'],
      signed: true,
      parameters: [
        id,
        after('new_reply is true when an owner message has seq > after.'),
        integerParameter(
          'wait',
          0,
          undefined,
          0,
          'Seconds to hold the request until the owner writes (a reply, a close, a block) before answering: ' +
            'at most poll_after_seconds less 5 (55 by default). 0 answers at once.',
        ),
      ],
      description:
        'Poll at most once per poll_after_seconds; sooner gets 429 with Retry-After. A poll that asks to wait ' +
        'S seconds uses S seconds of that interval (also when answered at once because the owner already ' +
        'wrote), so a client that chains waits of the longest length never gets 429; a wait that ends because ' +
        'the owner wrote lets the next poll in at once; a wait answered at once with news the previous poll ' +
        'already brought counts as a plain poll. One waiting poll per conversation while polls are limited. ' +
        "When the open question's reply_by comes before the wait ends, the wait answers then, with the question " +
        'expired, and the next poll is let in at once.',
      ok: { '200': { description: 'The signal.', content: json(ref('Updates')) } },
    }),
  },
  '/api/v1/conversations/{id}/close': {
    post: operation('closeConversation', {
      summary: 'Close the conversation: you are done',
      tag: 'conversations',
      bearer: true,
      parameters: [id],
      scopes: ['bearer'],
      signed: true,
      description:
        'No body. The conversation stays readable and its follow-ups get 410; the owner may still reply or ' +
        'reopen it. Idempotent: closing a closed conversation answers its record as it is. closed_by says who ' +
        'closed it; a webhook gets conversation.closed with closed_by "agent".',
      ok: {
        '200': { description: 'Closed (or closed already): the conversation.', content: json(ref('Conversation')) },
      },
    }),
  },
  '/api/v1/conversations/{id}/webhook': {
    put: operation('putWebhook', {
      summary: "Register where to be told of the owner's writes",
      tag: 'conversations',
      bearer: true,
      parameters: [id],
      body: 'WebhookRegistration',
      scopes: ['bearer', 'post', 'webhook'],
      signed: true,
      statuses: [...EVERY_ERROR, 503],
      description:
        'One webhook per conversation; PUT again replaces it. The URL must use https and resolve to public ' +
        'addresses only (the owner may allow named hosts). The signing secret is shown in this answer only.',
      ok: {
        '201': { description: 'Registered.', content: json(ref('WebhookCreated')) },
        '200': { description: 'Replaced, with a new secret.', content: json(ref('WebhookCreated')) },
      },
    }),
    get: operation('getWebhook', {
      summary: 'The webhook and the state of its deliveries, without the secret',
      tag: 'conversations',
      bearer: true,
      parameters: [id],
      scopes: ['bearer', 'webhook'],
      signed: true,
      statuses: [...EVERY_ERROR, 404, 503],
      ok: { '200': { description: 'The webhook.', content: json(ref('Webhook')) } },
    }),
    delete: operation('deleteWebhook', {
      summary: 'Remove the webhook and its undelivered events',
      tag: 'conversations',
      bearer: true,
      parameters: [id],
      scopes: ['bearer', 'webhook'],
      signed: true,
      statuses: [...EVERY_ERROR, 404, 503],
      ok: { '204': { description: 'Removed.' } },
    }),
  },
};

const signatureHeader = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/** What the service POSTs to a registered webhook (OpenAPI 3.1 `webhooks`). */
export const WEBHOOK_EVENTS = {
  conversationEvent: {
    post: {
      summary: 'The owner replied, closed or reopened the conversation',
      operationId: 'conversationEvent',
      security: [], // the receiver checks the signature instead
      description:
        'Signed as the Standard Webhooks specification says; any of its verifiers checks it with the secret ' +
        'from the registration. Delivered at least once: deduplicate by webhook-id. Retried after 5 s, 5 min, ' +
        '30 min, 2 h, 5 h, then every 10 h until the event is a day old, unless the receiver answers 2xx. ' +
        'Thin: read the messages with the credential, as always.',
      parameters: [
        signatureHeader('webhook-id', "The event's id (msg_…), the same on every attempt."),
        signatureHeader('webhook-timestamp', 'Seconds since the Unix epoch when this attempt was signed.'),
        signatureHeader(
          'webhook-signature',
          'v1, followed by the base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with the ' +
            'base64-decoded part of the secret after whsec_.',
        ),
      ],
      requestBody: { required: true, content: json(ref('WebhookEvent')) },
      responses: { '2XX': { description: 'Received: the event is not sent again.' } },
    },
  },
};
