// The OpenAPI document's component schemas, from the contract's constants and the Listing's
// field lists; the MCP tools' output schemas are made from the same ones.

import { AUTHORS, CONVERSATION_STATUSES, CREDENTIAL_PATTERN, BOUNDS, METADATA_KEYS } from '../base/contract.ts';
import { EVENT_TYPES } from '../rules/push.ts';
import { CHOICES_INPUT, QUESTION, QUESTION_FIELDS, REPLY_BY_INPUT } from './question-schemas.ts';
import { clientReasons } from '../refusals/refusal.ts';
import {
  CHECK_STATUSES,
  DATE_FIELDS,
  KINDS,
  OPTIONAL_FIELDS,
  REQUIRED_FIELDS,
  SLUG_PATTERN,
  STATUSES,
  URL_FIELDS,
} from '../directory/listing-fields.ts';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: object) => ({ 'application/json': { schema } });
export const object = (required: string[], properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});
export const STRING = { type: 'string' };
/** Who signed (Web Bot Auth): an agent's proved identity, an https URL; null when unsigned. */
const VERIFIED_AGENT = {
  type: ['string', 'null'],
  description:
    'The identity a Web Bot Auth signature proved (the https origin or key directory URL of the agent that signed); ' +
    'null when unsigned. On the conversation and the opening\'s answer, the opening\'s (so an agent knows at once ' +
    'whether its signature counted); on a client message, its own; owner messages have none.',
};
export const INTEGER = { type: 'integer' };
export const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
export const DATE_TIME = { type: 'string', format: 'date-time' };
export const URI = { type: 'string', format: 'uri' };
export const UUID = { type: 'string', format: 'uuid' };
const STATUS = { type: 'string', enum: CONVERSATION_STATUSES };
export const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });

/** A Listing: the spec's main fields always, the additional ones when the listing has them. */
function listingSchema() {
  const special: Record<string, object> = {
    slug: { type: 'string', pattern: SLUG_PATTERN },
    kind: { type: 'string', enum: KINDS },
    status: { type: 'string', enum: STATUSES },
    tags: { type: 'string', description: 'Comma-separated.' },
    details: {
      type: 'object',
      additionalProperties: STRING,
      description:
        'Participation instructions: purpose, read, post_or_reply, registration, api, authentication, rate_limits, …',
    },
    checked_at: { type: 'string', description: 'The day of the last live read check, or empty when unchecked.' },
    check_status: {
      type: 'string',
      enum: [...CHECK_STATUSES],
      description:
        'The last live read check: unchecked; passed (every page and the keyless example answered as ' +
        'promised); failed (check_note says what did not).',
    },
    check_note: { type: 'string', description: 'What the last read check found wrong; present only after a failure.' },
    tested_by: {
      type: 'string',
      description: 'read_tested: this service ran the keyless example request and got what the listing promises.',
    },
    field_notes: {
      type: 'array',
      items: object(['field', 'source', 'note', 'seen_at'], {
        field: STRING,
        source: URI,
        note: STRING,
        seen_at: DATE,
      }),
    },
  };
  const properties = Object.fromEntries(
    [...REQUIRED_FIELDS, ...OPTIONAL_FIELDS].map((field) => [
      field,
      special[field] ?? (URL_FIELDS.has(field) ? URI : DATE_FIELDS.has(field) ? DATE : STRING),
    ]),
  );
  return object([...REQUIRED_FIELDS], properties);
}

const metadataValue = {
  type: 'string',
  maxLength: BOUNDS.metadataValueMaxChars,
  description: 'Plain text: no control characters.',
};
const metadata = {
  ...object([], Object.fromEntries(METADATA_KEYS.map((key) => [key, metadataValue]))),
  description: 'Self-declared and unverified.',
};
const messageText = {
  ...text(BOUNDS.messageMaxChars),
  description: 'No control characters but tab, line feed and carriage return.',
};
const links = { messages_url: URI, updates_url: URI, poll_after_seconds: INTEGER };

const webhookFields = {
  url: URI,
  created_at: DATE_TIME,
  events: { type: 'array', items: { type: 'string', enum: EVENT_TYPES } },
  last_attempt_at: { type: ['string', 'null'], format: 'date-time' },
  last_outcome: { type: ['string', 'null'] },
  failures_since_last_success: { type: 'integer', minimum: 0 },
  pending_events: { type: 'integer', minimum: 0 },
};

/** The component schemas; the MCP tools' output schemas are made from them. */
export const SCHEMAS = {
  Error: object(['error'], {
    error: object(['code', 'reason', 'message'], {
      code: INTEGER,
      reason: {
        type: 'string',
        enum: clientReasons().map(({ reason }) => reason),
        description:
          'Which rule refused the request: stable, one per refusal; each response lists its own. ' +
          clientReasons()
            .map(({ reason, when }) => `\`${reason}\`: ${when}`)
            .join(' '),
      },
      message: STRING,
    }),
  }),
  Listing: listingSchema(),
  ListingPage: object(['items', 'total', 'limit', 'offset', 'next_offset'], {
    items: { type: 'array', items: ref('Listing') },
    total: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: BOUNDS.directoryLimitMax },
    offset: { type: 'integer', minimum: 0, maximum: BOUNDS.directoryOffsetMax },
    next_offset: { type: ['integer', 'null'] },
    categories: {
      type: 'array',
      description: 'Only in an empty answer (total 0): the categories of this kind that exist, with their counts.',
      items: object(['name', 'count'], { name: STRING, count: { type: 'integer', minimum: 1 } }),
    },
  }),
  Health: {
    type: 'object',
    required: ['status', 'database'],
    properties: {
      status: { const: 'ok' },
      database: { const: 'ok' },
      version: { type: 'string', description: 'The release of this service (CHANGELOG.md).' },
      listings: INTEGER,
      time: DATE_TIME,
    },
  },
  ContactInfo: {
    type: 'object',
    required: ['protocol', 'limits', 'privacy'],
    properties: {
      protocol: { type: 'array', items: STRING },
      limits: { type: 'object', additionalProperties: INTEGER },
      privacy: STRING,
      documentation: { type: 'object', additionalProperties: STRING },
    },
  },
  CreateConversation: object(['message'], {
    message: messageText,
    metadata: { oneOf: [metadata, { type: 'null' }] },
    choices: CHOICES_INPUT,
    reply_by: REPLY_BY_INPUT,
  }),
  CreationResult: object(['id', 'access_token', 'expires_at'], {
    id: UUID,
    access_token: { type: 'string', pattern: CREDENTIAL_PATTERN },
    token_type: { const: 'Bearer' },
    expires_at: DATE_TIME,
    ...links,
    privacy: STRING,
    verified_agent: VERIFIED_AGENT,
  }),
  Conversation: object(
    [
      'id',
      'status',
      'created_at',
      'expires_at',
      'last_seq',
      'latest_owner_seq',
      'message_count',
      'metadata',
      'metadata_verified',
      'verified_agent',
      'closed_by',
      'messages_url',
      'updates_url',
      'poll_after_seconds',
      'question',
    ],
    {
      id: UUID,
      status: STATUS,
      created_at: DATE_TIME,
      expires_at: DATE_TIME,
      last_seq: { type: 'integer', minimum: 1 },
      latest_owner_seq: { type: 'integer', minimum: 0 },
      message_count: { type: 'integer', minimum: 1 },
      metadata,
      metadata_verified: { const: false },
      verified_agent: VERIFIED_AGENT,
      closed_by: {
        type: ['string', 'null'],
        enum: ['agent', 'owner', null],
        description: 'Who closed it, while it is closed: its agent (POST …/close) or the owner; else null.',
      },
      ...links,
      question: ref('Question'),
    },
  ),
  Question: QUESTION,
  Message: object(['seq', 'author', 'message', 'created_at'], {
    seq: {
      type: 'integer',
      minimum: 1,
      description: 'Starts at 1; rises by one with every message, whoever wrote it.',
    },
    author: { type: 'string', enum: AUTHORS },
    message: messageText,
    created_at: DATE_TIME,
    verified_agent: VERIFIED_AGENT,
    ...QUESTION_FIELDS,
  }),
  History: object(['items', 'has_more', 'next_after'], {
    items: { type: 'array', items: ref('Message') },
    has_more: { type: 'boolean' },
    next_after: { type: 'integer', minimum: 0 },
  }),
  FollowUp: object(['message'], { message: messageText, choices: CHOICES_INPUT, reply_by: REPLY_BY_INPUT }),
  FollowUpResult: object(['message', 'duplicate'], { message: ref('Message'), duplicate: { type: 'boolean' } }),
  JsonRpcMessage: {
    type: 'object',
    required: ['jsonrpc'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer', 'null'] },
      method: STRING,
      params: { type: 'object' },
      result: { type: 'object' },
      error: object(['code', 'message'], { code: INTEGER, message: STRING, data: {} }),
    },
  },
  WebhookRegistration: object(['url'], {
    url: { ...URI, maxLength: 2048, description: 'https, resolving to public addresses only.' },
  }),
  Webhook: object(
    ['url', 'created_at', 'events', 'last_attempt_at', 'last_outcome', 'failures_since_last_success', 'pending_events'],
    webhookFields,
  ),
  WebhookCreated: object(
    [
      'url',
      'created_at',
      'events',
      'last_attempt_at',
      'last_outcome',
      'failures_since_last_success',
      'pending_events',
      'secret',
    ],
    {
      ...webhookFields,
      secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+=*$', description: 'Shown only in this answer.' },
    },
  ),
  WebhookEvent: object(['type', 'timestamp', 'data'], {
    type: { type: 'string', enum: EVENT_TYPES },
    timestamp: DATE_TIME,
    data: object(['conversation_id', 'status', 'last_seq', 'latest_owner_seq'], {
      conversation_id: UUID,
      status: STATUS,
      last_seq: { type: 'integer', minimum: 1 },
      latest_owner_seq: { type: 'integer', minimum: 0 },
    }),
  }),
  Updates: object(['id', 'status', 'last_seq', 'latest_owner_seq', 'new_reply', 'poll_after_seconds', 'question'], {
    id: UUID,
    status: STATUS,
    last_seq: { type: 'integer', minimum: 1 },
    latest_owner_seq: { type: 'integer', minimum: 0 },
    new_reply: { type: 'boolean' },
    poll_after_seconds: INTEGER,
    question: ref('Question'),
  }),
};
