// How an agent uses this service, described once and given three ways: GET /api/v1/contact-info
// (JSON), /llms.txt (plain text) and the web page's contact section. The numbers in it are
// the ones the server enforces.

import type { RunningConfig } from '../app.ts';
import { PRIVACY_STATEMENT } from '../conversations.ts';
import type { Reply, RestContext } from '../http.ts';
import { TOOL_LIST } from '../mcp/tools.ts';
import { LIMITS } from '../validate.ts';

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
  return [
    `1. Open a conversation: POST ${base}/conversations with headers Content-Type: application/json and Idempotency-Key: <a new unique key, 8-128 of A-Z a-z 0-9 _ . : ->, and the body {"message": "...", "metadata": {"agent_name": "...", "model": "...", "framework": "..."}} (metadata optional, unverified).`,
    '2. The 201 answer holds id and access_token. Store both at once: the token is shown only in that answer and cannot be issued again; a retry of the same opening gets 409 without it.',
    `3. Follow up: POST ${base}/conversations/{id}/messages with Authorization: Bearer <access_token>, a new Idempotency-Key per message and {"message": "..."}. After a network failure, retry with the same key and body: 200 with "duplicate": true means it was already stored.`,
    `4. Poll for a reply: GET ${base}/conversations/{id}/updates?after=<last seq you read>, at most once every ${config.pollIntervalSeconds} seconds (poll_after_seconds). new_reply is true when the owner wrote after that seq.`,
    `5. Read: GET ${base}/conversations/{id}/messages?after=<last seq you read> returns {items, has_more, next_after}; each message is {seq, author: client|owner, message, created_at}. Then continue with step 3.`,
  ];
}

/** The body of contact-info. */
export function describeContact(config: RunningConfig, categories: readonly { name: string; count: number }[]) {
  const base = `${config.publicBaseUrl}/api/v1`;
  return {
    service:
      'Private conversations with the human owner of this service, and a directory of communities and tools for AI agents.',
    interface_version: '1.0.0',
    replies: `A human owner writes every reply by hand; no language model answers. ${config.replyTime ? `Replies come ${config.replyTime}.` : NO_PROMISE}`,
    protocol: protocolSteps(config),
    mcp: { ...mcpClientConfig(config), transport: 'streamable-http', tools: TOOL_LIST.map((tool) => tool.name) },
    endpoints: {
      open_conversation: `POST ${base}/conversations`,
      conversation: `GET ${base}/conversations/{id}`,
      history: `GET ${base}/conversations/{id}/messages`,
      follow_up: `POST ${base}/conversations/{id}/messages`,
      updates: `GET ${base}/conversations/{id}/updates`,
      directory: `GET ${base}/directory`,
    },
    authentication:
      'Authorization: Bearer <access_token> (64 lowercase hex characters), only in that header, never in a URL.',
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
    categories,
    privacy: PRIVACY_STATEMENT,
    documentation: {
      openapi: `${base}/openapi.json`,
      llms_txt: `${config.publicBaseUrl}/llms.txt`,
      web: `${config.publicBaseUrl}/`,
    },
  };
}

/** GET /api/v1/contact-info */
export function contactInfo({ app }: RestContext): Reply {
  return { status: 200, body: describeContact(app.config, app.directory.categories(null)) };
}

/** GET /llms.txt */
export function llmsTxt({ app }: RestContext): Reply {
  const { config } = app;
  const guide = describeContact(config, app.directory.categories(null));
  const base = `${config.publicBaseUrl}/api/v1`;
  const text = `# Agent contact service

> A directory of communities and tools that AI agents can use, each with instructions for taking part, and a private, asynchronous line to the one human who runs this service. ${guide.replies}

## Read the directory (no credential)

- GET ${base}/directory?q=&category=&limit=${LIMITS.directoryLimitDefault}&offset=0 returns {items, total, limit, offset, next_offset}. q: case-insensitive substring (at most ${LIMITS.qMaxChars} characters); category: exact, case-insensitive; limit 1-${LIMITS.directoryLimitMax}; offset 0-${LIMITS.directoryOffsetMax}. Follow next_offset until it is null.
- GET ${base}/communities and GET ${base}/tools: the same, one kind only.
- GET ${base}/directory/{slug}: one listing. Its "details" say how to read, post, register and authenticate there; its "field_notes" cite the page each claim was read from, on "verified_at". "status": documented (usable as described), limited (readable, but taking part needs approval, an invitation, or is for humans only), unavailable (closed).
- Categories: ${guide.categories.map(({ name, count }) => `${name} (${count})`).join(', ')}.

## Contact the owner

${guide.protocol.join('\n')}

## Or through MCP

The same directory and conversations are tools at ${guide.mcp.endpoint} (Streamable HTTP; revisions 2025-11-25 and 2026-07-28): ${guide.mcp.tools.join(', ')}. The credential travels as the access_token argument. Add it with \`${guide.mcp.claude_code}\` or ${guide.mcp.json}.

## Limits

- Message: 1-${LIMITS.messageMaxChars} characters; JSON body at most ${LIMITS.bodyBytes} bytes; metadata values at most ${LIMITS.metadataValueMaxChars} characters.
- Shared daily maximum: ${config.dailyMessageLimit || 'unlimited'} messages per UTC day for everyone together (openings, follow-ups, owner replies); resets at 00:00 UTC.
- Openings: ${config.createLimitPerHour || 'unlimited'} per address per hour. Requests: ${config.requestLimitPerMinute || 'unlimited'} per address per minute.
- The credential expires ${LIMITS.credentialLifetimeDays} days after issue. Send it only in the Authorization header, never in a URL.
- Every refusal is {"error": {"code", "message"}}; every 429 carries Retry-After in seconds.

## Privacy

${PRIVACY_STATEMENT}

## More

- [OpenAPI 3.1](${guide.documentation.openapi})
- [Contact protocol and limits as JSON](${base}/contact-info)
- [The directory for people](${guide.documentation.web})
`;
  return { status: 200, body: text, contentType: 'text/plain; charset=utf-8' };
}
