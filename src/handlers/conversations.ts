// Private conversations: opening, reading, following up and polling.
// Checks run in the contract's order: authentication → content type → size → body and
// key validation → idempotency → state → limits → the write.

import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { App } from '../app.ts';
import type { ConversationRow, MessageRow } from '../db.ts';
import { HttpError, tooManyRequests } from '../errors.ts';
import { readJsonBody, type Answer, type Handler, type RequestContext } from '../http.ts';
import { isoDaysLater, isoTime, secondsUntilNextUtcDay, utcDay } from '../time.ts';
import {
  LIMITS,
  parseConversationId,
  parseCreateBody,
  parseFollowUpBody,
  parseHistoryQuery,
  parseIdempotencyKey,
  parseUpdatesQuery,
} from '../validate.ts';
import { PRIVACY_STATEMENT } from './public.ts';

type AuthenticatedHandler = (ctx: RequestContext, conversation: ConversationRow) => Answer | Promise<Answer>;

/**
 * The SHA-256 of a credential, in hex: the only form in which it is looked up (the
 * store keeps the 32 bytes). Hex, because a Buffer made by the digest cost measurably
 * more per request than a string.
 */
function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

// The fixed refusals of authentication, made once with their body bytes.
const CHALLENGE = { 'www-authenticate': 'Bearer' };
const NO_CREDENTIAL = new HttpError(
  401,
  'Send exactly one header Authorization: Bearer <access_token>, with the 64 lowercase hex characters returned when the conversation was opened.',
  CHALLENGE,
);
const UNKNOWN_CREDENTIAL = new HttpError(
  401,
  'This credential matches no conversation. Check that you sent the whole access_token from the creation response.',
  CHALLENGE,
);
const OTHER_CONVERSATION = new HttpError(403, 'This credential belongs to another conversation; use it only with the id it was issued for.');
const BLOCKED = new HttpError(403, 'The owner has blocked this conversation; it can no longer be used.');

/** Guard: the Bearer credential must belong to the conversation in the path. */
export function authenticated(handler: AuthenticatedHandler): Handler {
  return (ctx) => {
    const conversation = authenticate(ctx);
    return conversation instanceof HttpError ? conversation : handler(ctx, conversation);
  };
}

/** The conversation the request's credential opens, or the refusal (401, 403, 410). */
function authenticate(ctx: RequestContext): ConversationRow | HttpError {
  const token = bearerToken(ctx.req.rawHeaders);
  if (token === undefined) return NO_CREDENTIAL;
  const conversation = ctx.app.store.conversationByTokenHash(hashToken(token));
  if (!conversation) return UNKNOWN_CREDENTIAL;
  const pathId = ctx.params.id as string;
  // The stored id is a valid lowercase UUID: a path id equal to it needs no parsing.
  if (pathId !== conversation.id && parseConversationId(pathId) !== conversation.id) return OTHER_CONVERSATION;
  if (conversation.blocked) return BLOCKED;
  // Both are ISO 8601 UTC texts of the same shape, which compare as the instants do.
  if (conversation.expires_at <= isoTime(ctx.app.now())) {
    return new HttpError(410, `This credential expired at ${conversation.expires_at}. Open a new conversation to continue.`);
  }
  return conversation;
}

// The scheme is case-insensitive (RFC 9110); the credential is exactly 64 lowercase hex digits.
const BEARER_CREDENTIAL = /^[Bb][Ee][Aa][Rr][Ee][Rr] +([0-9a-f]{64})$/;

/**
 * The credential of the one Authorization header, or undefined when there is none, more
 * than one, or it is malformed. Read from the raw headers: Node's req.headers keeps only
 * the first of repeated Authorization headers, and is built only if someone asks for it.
 */
function bearerToken(rawHeaders: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (value !== undefined) return undefined;
    value = rawHeaders[i + 1] as string;
  }
  return value === undefined ? undefined : BEARER_CREDENTIAL.exec(value)?.[1];
}

function conversationUrls(app: App, id: string) {
  const base = `${app.config.publicBaseUrl}/api/v1/conversations/${id}`;
  return { messages_url: `${base}/messages`, updates_url: `${base}/updates` };
}

function dailyLimitReached(app: App, now: number): HttpError {
  return tooManyRequests(
    `The service's shared maximum of ${app.config.dailyMessageLimit} messages per UTC day is reached. Nothing was stored; retry with the same Idempotency-Key after 00:00 UTC.`,
    secondsUntilNextUtcDay(now),
  );
}

/** POST /api/v1/conversations */
export async function createConversation(ctx: RequestContext): Promise<Answer> {
  const { app } = ctx;
  const body = await readJsonBody(ctx.req);
  const key = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
  const { message, metadata } = parseCreateBody(body);
  // A read-only first look, so that a reused key is not counted by the opening limit;
  // the transaction below checks again, for concurrent openings with the same key.
  if (app.store.creationKeyExists(key)) return creationKeyUsed();
  const now = app.now();
  const wait = app.limits.openings.wait(ctx.clientAddress, now);
  if (wait > 0) {
    return tooManyRequests(
      `At most ${app.config.createLimitPerHour} conversations may be opened per hour from one address. Continue an existing conversation, or retry later.`,
      wait,
    );
  }

  const id = randomUUID();
  const token = randomBytes(32).toString('hex');
  const expiresAt = isoDaysLater(now, LIMITS.credentialLifetimeDays);
  const result = await app.store.submitOpening({
    id,
    tokenHash: hashToken(token),
    creationKey: key,
    metadata: JSON.stringify(metadata),
    message,
    createdAt: isoTime(now),
    expiresAt,
    day: utcDay(now),
    dailyLimit: app.config.dailyMessageLimit,
  });
  if (result.kind === 'key-used') return creationKeyUsed();
  if (result.kind === 'daily-limit') return dailyLimitReached(app, now);
  app.limits.openings.record(ctx.clientAddress, now);
  app.notifyOwner({ conversationId: id, seq: 1, agentName: metadata.agent_name ?? '', message });

  return {
    status: 201,
    body: {
      id,
      access_token: token,
      token_type: 'Bearer',
      expires_at: expiresAt,
      ...conversationUrls(app, id),
      privacy: PRIVACY_STATEMENT,
      poll_after_seconds: app.config.pollIntervalSeconds,
    },
  };
}

function creationKeyUsed(): HttpError {
  return new HttpError(
    409,
    'This Idempotency-Key already opened a conversation. Its credential was shown once and is never issued again; if the response was lost, open a new conversation with a new key.',
  );
}

/** GET /api/v1/conversations/{id} */
export const getConversation: AuthenticatedHandler = (ctx, conversation) => ({
  status: 200,
  body: {
    id: conversation.id,
    status: conversation.status,
    created_at: conversation.created_at,
    expires_at: conversation.expires_at,
    last_seq: conversation.last_seq,
    latest_owner_seq: conversation.latest_owner_seq,
    message_count: conversation.last_seq, // seq rises by one with every message, whoever wrote it
    metadata: JSON.parse(conversation.metadata),
    metadata_verified: false,
    ...conversationUrls(ctx.app, conversation.id),
    poll_after_seconds: ctx.app.config.pollIntervalSeconds,
  },
});

/** GET /api/v1/conversations/{id}/messages */
export const listMessages: AuthenticatedHandler = (ctx, conversation) => {
  const { after, limit } = parseHistoryQuery(ctx.query);
  const rows = ctx.app.store.messagesAfter(conversation.id, after, limit + 1);
  const items: MessageRow[] = rows.slice(0, limit);
  return {
    status: 200,
    body: { items, has_more: rows.length > limit, next_after: items.at(-1)?.seq ?? after },
  };
};

/** POST /api/v1/conversations/{id}/messages */
export const postMessage: AuthenticatedHandler = async (ctx, conversation) => {
  const { app } = ctx;
  const body = await readJsonBody(ctx.req);
  const key = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
  const { message } = parseFollowUpBody(body);
  const now = app.now();
  const result = await app.store.submitFollowUp({
    conversationId: conversation.id,
    statusSeen: conversation.status,
    message,
    idempotencyKey: key,
    createdAt: isoTime(now),
    day: utcDay(now),
    dailyLimit: app.config.dailyMessageLimit,
  });
  switch (result.kind) {
    case 'duplicate':
      return { status: 200, body: { message: result.message, duplicate: true } };
    case 'key-conflict':
      return new HttpError(409, 'This Idempotency-Key was already used for a different message in this conversation. Use a new key for each new message.');
    case 'closed':
      return new HttpError(410, 'The owner closed this conversation; it can still be read, but takes no new messages. Open a new conversation to continue.');
    case 'daily-limit':
      return dailyLimitReached(app, now);
    case 'created': {
      const agentName = (JSON.parse(conversation.metadata) as { agent_name?: string }).agent_name ?? '';
      app.notifyOwner({ conversationId: conversation.id, seq: result.message.seq, agentName, message });
      return { status: 201, body: { message: result.message, duplicate: false } };
    }
  }
};

/** GET /api/v1/conversations/{id}/updates */
export const pollUpdates: AuthenticatedHandler = (ctx, conversation) => {
  const { app } = ctx;
  const { after } = parseUpdatesQuery(ctx.query);
  const wait = app.limits.polls.poll(conversation.id, app.now());
  if (wait > 0) {
    return tooManyRequests(
      `Poll this conversation at most once every ${app.config.pollIntervalSeconds} seconds (poll_after_seconds).`,
      wait,
    );
  }
  return {
    status: 200,
    body: {
      id: conversation.id,
      status: conversation.status,
      last_seq: conversation.last_seq,
      latest_owner_seq: conversation.latest_owner_seq,
      new_reply: conversation.latest_owner_seq > after,
      poll_after_seconds: app.config.pollIntervalSeconds,
    },
  };
};
