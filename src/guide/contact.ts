// How an agent uses this service, described once and given three ways: GET /api/v1/contact-info
// (JSON, doors/rest/public.ts), /llms.txt (plain text, doors/web/llms-txt.ts) and the web page's
// contact section. The numbers in it are the ones the server enforces.

import { suffixList } from '../base/sites.ts';
import type { RunningConfig } from '../base/config.ts';
import type { App } from '../runtime/app.ts';
import { KEY_RULE, BOUNDS, TOOL_NAMES } from '../base/contract.ts';
import { limitSentences } from './limit-sentences.ts';
import { PRIVACY_STATEMENT } from '../rules/views.ts';
import { maxWaitSeconds } from '../runtime/polls.ts';
import { SERVICE_VERSION } from '../base/version.ts';

const NO_PROMISE = 'There is no promised reply time: the owner answers when they can.';

/** How a client adds the MCP endpoint, in one line: Claude Code's command and the usual JSON. */
export function mcpClientConfig(config: RunningConfig) {
  const url = `${config.publicBaseUrl}/mcp`;
  return {
    endpoint: url,
    claude_code: `claude mcp add --transport http agent-contact ${url}`,
    json: JSON.stringify({ mcpServers: { 'agent-contact': { type: 'http', url } } }),
  };
}

/** The contact protocol as numbered steps. */
function protocolSteps(config: RunningConfig): string[] {
  const base = `${config.publicBaseUrl}/api/v1`;
  const poll = config.pollIntervalSeconds;
  const wait = maxWaitSeconds(poll);
  return [
    `1. Open a conversation: POST ${base}/conversations with headers Content-Type: application/json and ` +
      `Idempotency-Key: <a new random UUID, or any new key of ${KEY_RULE}>, and the body ` +
      '{"message": "...", "metadata": {"agent_name": "...", "model": "...", "framework": "..."}} ' +
      '(metadata optional, unverified). Keys are shared by every client of this service: a random UUID never ' +
      "collides with another agent's.",
    '2. The 201 answer holds id and access_token. Store both at once, somewhere that outlives your session: ' +
      'the token is shown only in that answer and cannot be issued again; a retry of the same opening gets 409 ' +
      'without it. If you lose them, open a new conversation and name the old id in your first message.',
    `3. Follow up: POST ${base}/conversations/{id}/messages with Authorization: Bearer <access_token>, a new ` +
      'Idempotency-Key per message and {"message": "..."}. After a network failure, retry with the same key and ' +
      'body: 200 with "duplicate": true means it was already stored.',
    `4. Learn of a reply: GET ${base}/conversations/{id}/updates?after=<last seq you read>&wait=${wait} holds ` +
      `the request until the owner writes or ${wait} seconds pass; new_reply is true when the owner wrote after ` +
      `that seq. Chain such waits, or poll without wait at most once every ${poll} seconds (poll_after_seconds). ` +
      `Or be told: PUT ${base}/conversations/{id}/webhook with {"url": "https://…"} and your credential returns ` +
      'a signing secret once; the owner\'s replies, closes and reopens are then POSTed there, signed as Standard ' +
      'Webhooks says, at least once (deduplicate by webhook-id), without message text: read it as in step 5. ' +
      'The URL must use https and resolve to public addresses only; to test with a receiver on your own machine ' +
      '(say on port 9000), run your own copy of this service with OUTBOUND_ALLOWED_HOSTS=127.0.0.1:9000 npm start.',
    `5. Read: GET ${base}/conversations/{id}/messages?after=<last seq you read> returns {items, has_more, ` +
      'next_after}; each message is {seq, author: client|owner, message, created_at}, and a client message ' +
      `verified_agent. Then continue with step 3. When you are done, close it: POST ${base}/conversations/{id}/` +
      'close with your credential (no body); it stays readable, and closing again answers it as it is.',
    '6. Optional: sign your requests with Web Bot Auth (HTTP Message Signatures, RFC 9421: Ed25519, ' +
      `tag="web-bot-auth", covering "@authority" (${new URL(config.publicBaseUrl).host}) and "signature-agent", ` +
      'with created, expires and keyid (the RFC 7638 thumbprint of your key), your keys published as a JWK Set at ' +
      '<your origin>/.well-known/http-message-signatures-directory). The owner then sees who you are, your ' +
      'conversation and messages carry verified_agent (the opening\'s answer too), and your messages count ' +
      "against your site's share and the verified pool rather than your address's; once the owner trusts you, " +
      'against neither. Sign each write anew (a fresh created, or a nonce): a signature authorizes one write, ' +
      'and another write carrying it gets 401 signature_replayed. The access_token stays your authorization; ' +
      'unsigned requests work as before. A bad signature is refused, never ignored: 400 signature_malformed, ' +
      '401 signature_invalid, 503 key_directory_unavailable with Retry-After.',
      '7. Every refusal, on every door, carries a stable reason (REST and MCP tool results: error.reason; MCP ' +
      'JSON-RPC errors: error.data.reason; A2A: ErrorInfo.metadata.reason), the same word for the same rule: ' +
      'key your error handling on it.',
    questionStep(),
  ];
}

/** Asking a question the owner answers with one choice, by a deadline (rules/questions.ts). */
function questionStep(): string {
  const { choicesMin, choicesMax, choiceMaxChars, replyByMinSeconds, replyByMaxDays } = BOUNDS;
  return (
    `8. Ask for a decision: beside "message" (an opening or a follow-up), add "choices": [${choicesMin} to ` +
    `${choicesMax} distinct answers of 1 to ${choiceMaxChars} characters] and/or "reply_by": "<RFC 3339 date-time ` +
    `with an offset, ${replyByMinSeconds} seconds to ${replyByMaxDays} days ahead>" (400 bad_choices or ` +
    'bad_reply_by names what to fix; a retry with the same key must carry the same values). The conversation ' +
    'and updates then carry "question": {seq, choices, reply_by, state}, state open until the owner answers ' +
    "(answered) or reply_by passes (expired). The owner's answer is a message with \"choice\": {for_seq, index, " +
    'text}, the choice at choices[index] (from 0), so you can act on it without reading prose; no choice ever ' +
    'arrives after reply_by, and updates?wait answers at reply_by when the question expires while you wait. A ' +
    'question without choices is answered by any reply; a newer question replaces one still open (superseded). ' +
    'Over MCP: the arguments choices and reply_by; over A2A: a data part {"choices": [...], "reply_by": "..."} ' +
    'beside the text part, and the choice comes back as a data part {"choice": {...}} of the owner\'s message.'
  );
}

/** Every limit as a number; 0 means unlimited (or, for a share, none). */
function limitNumbers(app: App) {
  const { config, quotas } = app;
  return {
    json_body_max_bytes: BOUNDS.bodyBytes,
    message_min_chars: 1,
    message_max_chars: BOUNDS.messageMaxChars,
    metadata_value_max_chars: BOUNDS.metadataValueMaxChars,
    idempotency_key_min_length: BOUNDS.idempotencyKeyMinLength,
    idempotency_key_max_length: BOUNDS.idempotencyKeyMaxLength,
    credential_lifetime_days: BOUNDS.credentialLifetimeDays,
    daily_message_maximum: quotas.dailyMaximum,
    daily_conversation_share: quotas.conversationShare,
    daily_address_share: quotas.addressShare,
    daily_agent_share: quotas.siteShare,
    daily_verified_share: quotas.verifiedPool,
    daily_unverified_share: quotas.unverifiedPool,
    daily_owner_reserve: quotas.ownerReserve,
    poll_after_seconds: config.pollIntervalSeconds,
    updates_wait_max_seconds: maxWaitSeconds(config.pollIntervalSeconds),
    openings_per_address_per_hour: config.createLimitPerHour,
    requests_per_address_per_minute: config.requestLimitPerMinute,
    directory_q_max_chars: BOUNDS.qMaxChars,
    directory_limit_default: BOUNDS.directoryLimitDefault,
    directory_limit_max: BOUNDS.directoryLimitMax,
    directory_offset_max: BOUNDS.directoryOffsetMax,
    history_limit_default: BOUNDS.historyLimitDefault,
    history_limit_max: BOUNDS.historyLimitMax,
    question_choices_min: BOUNDS.choicesMin,
    question_choices_max: BOUNDS.choicesMax,
    choice_max_chars: BOUNDS.choiceMaxChars,
    reply_by_min_seconds: BOUNDS.replyByMinSeconds,
    reply_by_max_days: BOUNDS.replyByMaxDays,
  };
}

/** The body of contact-info. */
export function describeContact(app: App) {
  const { config } = app;
  const base = `${config.publicBaseUrl}/api/v1`;
  const sentences = limitSentences(config, app.quotas);
  const replies = config.replyTime ? `Replies come ${config.replyTime}.` : NO_PROMISE;
  return {
    service:
      'Private conversations with the human owner of this service, and a directory of communities and tools ' +
      'for AI agents.',
    interface_version: '1.0.0',
    service_version: SERVICE_VERSION,
    replies: `A human owner writes every reply by hand; no language model answers. ${replies}`,
    protocol: protocolSteps(config),
    mcp: { ...mcpClientConfig(config), transport: 'streamable-http', tools: [...TOOL_NAMES] },
    a2a: {
      agent_card: `${config.publicBaseUrl}/.well-known/agent-card.json`,
      endpoint: `${config.publicBaseUrl}/a2a`,
      protocol: 'A2A 1.0, JSON-RPC and HTTP+JSON; one conversation is one task',
    },
    endpoints: {
      open_conversation: `POST ${base}/conversations`,
      conversation: `GET ${base}/conversations/{id}`,
      history: `GET ${base}/conversations/{id}/messages`,
      follow_up: `POST ${base}/conversations/{id}/messages`,
      close: `POST ${base}/conversations/{id}/close`,
      updates: `GET ${base}/conversations/{id}/updates?after={seq}&wait={seconds}`,
      webhook: `PUT, GET, DELETE ${base}/conversations/{id}/webhook`,
      directory: `GET ${base}/directory`,
    },
    authentication:
      'Authorization: Bearer <access_token> (64 lowercase hex characters), only in that header, never in a URL.',
    limits: limitNumbers(app),
    sites:
      "A verified agent's site is the registrable domain of its identity's host (every subdomain of " +
      'agent.example is agent.example; a host on an IP address is its own site), by the Public Suffix List ' +
      `of ${suffixList().date}.`,
    limits_note:
      'A limit of 0 means unlimited (for a share: no share). ' +
      `${sentences.daily} ${sentences.shares} ${sentences.openings} ${sentences.requests} ${sentences.polling} ` +
      'Every 429 carries Retry-After in seconds and names the limit that was met.',
    categories: app.directory.categories(null),
    privacy: PRIVACY_STATEMENT,
    documentation: {
      openapi: `${base}/openapi.json`,
      llms_txt: `${config.publicBaseUrl}/llms.txt`,
      web: `${config.publicBaseUrl}/`,
    },
  };
}
