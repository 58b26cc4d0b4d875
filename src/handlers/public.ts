// Public, read-only endpoints: health, contact-info, the OpenAPI document and the directory.

import type { Config } from '../config.ts';
import { PRIVACY_STATEMENT } from '../conversations.ts';
import { conditionalReply, type Handler, type Reply, type RestContext } from '../http.ts';
import { OPENAPI_DOCUMENT } from '../openapi.ts';
import { refuse } from '../refusals.ts';
import { LIMITS, parseDirectoryQuery, type Kind, type Query } from '../validate.ts';

const OPENAPI_BYTES = Buffer.from(`${JSON.stringify(OPENAPI_DOCUMENT)}\n`);

/** GET /api/v1/health: answers only after a real query. */
export function health({ app }: RestContext): Reply {
  return { status: 200, body: { status: 'ok', database: 'ok', listings: app.store.listingCount(), time: new Date(app.now()).toISOString() } };
}

/** GET /api/v1/contact-info: the protocol, every limit as numbers, the privacy statement. */
export function contactInfo({ app }: RestContext): Reply {
  return { status: 200, body: describeContact(app.config) };
}

/** The body of contact-info, built from the configuration so the numbers are the ones enforced. */
export function describeContact(config: Config & { publicBaseUrl: string }) {
  const base = `${config.publicBaseUrl}/api/v1`;
  return {
    service: 'Private conversations with the human owner of this service, and a directory of communities and tools for AI agents.',
    interface_version: '1.0.0',
    replies: 'A human owner writes every reply by hand, usually within a day or two. No language model answers.',
    protocol: [
      `1. Open a conversation: POST ${base}/conversations with a new Idempotency-Key header and the JSON body {"message": "...", "metadata": {"agent_name": "..."}}.`,
      '2. Store the returned id and access_token at once: the token is shown only in that response and cannot be issued again.',
      `3. Send follow-ups: POST ${base}/conversations/{id}/messages with Authorization: Bearer <access_token>, a new Idempotency-Key per message, and {"message": "..."}. Retry with the same key and body after a network failure: you get 200 with duplicate true and nothing is stored twice.`,
      `4. Poll for a reply: GET ${base}/conversations/{id}/updates?after=<last seq you read>, no more than once every poll_after_seconds (${config.pollIntervalSeconds}).`,
      `5. Read the reply: GET ${base}/conversations/{id}/messages?after=<last seq you read>, then continue with step 3.`,
    ],
    endpoints: {
      open_conversation: `POST ${base}/conversations`,
      conversation: `GET ${base}/conversations/{id}`,
      history: `GET ${base}/conversations/{id}/messages`,
      follow_up: `POST ${base}/conversations/{id}/messages`,
      updates: `GET ${base}/conversations/{id}/updates`,
      directory: `GET ${base}/directory`,
    },
    authentication: 'Authorization: Bearer <access_token> (64 lowercase hex characters), only in that header, never in a URL.',
    limits: {
      json_body_max_bytes: LIMITS.bodyBytes,
      message_min_chars: 1,
      message_max_chars: LIMITS.messageMaxChars,
      metadata_value_max_chars: LIMITS.metadataValueMaxChars,
      idempotency_key_min_length: LIMITS.idempotencyKeyMinLength,
      idempotency_key_max_length: LIMITS.idempotencyKeyMaxLength,
      credential_lifetime_days: LIMITS.credentialLifetimeDays,
      daily_message_maximum: config.dailyMessageLimit,
      poll_after_seconds: config.pollIntervalSeconds,
      openings_per_address_per_hour: config.createLimitPerHour,
      requests_per_address_per_minute: config.requestLimitPerMinute,
      directory_q_max_chars: LIMITS.qMaxChars,
      directory_limit_default: LIMITS.directoryLimitDefault,
      directory_limit_max: LIMITS.directoryLimitMax,
      directory_offset_max: LIMITS.directoryOffsetMax,
      history_limit_default: LIMITS.historyLimitDefault,
      history_limit_max: LIMITS.historyLimitMax,
    },
    limits_note:
      'A limit of 0 means unlimited. The daily message maximum is shared by everyone and counts openings, follow-ups and owner replies per UTC day; it resets at 00:00 UTC. Every 429 carries Retry-After in seconds.',
    privacy: PRIVACY_STATEMENT,
    documentation: {
      openapi: `${base}/openapi.json`,
      llms_txt: `${config.publicBaseUrl}/llms.txt`,
      web: `${config.publicBaseUrl}/`,
    },
  };
}

/** GET /api/v1/directory, /communities, /tools: one handler per kind filter. */
export function listDirectory(kind: Kind | null) {
  return (ctx: RestContext & { query: Query }): Reply => conditionalReply(ctx.req, ctx.app.directory.list(parseDirectoryQuery(ctx.query, kind)));
}

/** GET /api/v1/directory/{slug} */
export function getListing(ctx: RestContext): Reply {
  const answer = ctx.app.directory.get(ctx.params.slug as string);
  if (answer === undefined) throw refuse('noListing');
  return conditionalReply(ctx.req, answer);
}

/** GET /api/v1/openapi.json */
export const openApi: Handler = () => ({ status: 200, body: OPENAPI_BYTES });
