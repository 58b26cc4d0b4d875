// The contract's constants, spelled once: the validators, the rules, the OpenAPI document,
// the MCP schemas and the guides all read them from here.

/**
 * The bounds of the interface: fixed sizes, ranges and lifetimes of what a client sends and gets.
 * (Words: a bound is fixed here; a quota is counted and stored per day; a rate is counted in
 * memory; "limits" is what the contract and the guides call all of them together.)
 */
export const BOUNDS = Object.freeze({
  bodyBytes: 16384,
  messageMaxChars: 8000,
  metadataValueMaxChars: 500,
  idempotencyKeyMinLength: 8,
  idempotencyKeyMaxLength: 128,
  qMaxChars: 120,
  directoryLimitDefault: 30,
  directoryLimitMax: 100,
  directoryOffsetMax: 10000,
  historyLimitDefault: 50,
  historyLimitMax: 100,
  /** message text one answer carries at most, in UTF-8 bytes (conversations.ts says why) */
  pageTextBytes: 256 * 1024,
  credentialLifetimeDays: 365,
  /** a question's choices: how many, and how long each is (after trimming) */
  choicesMin: 2,
  choicesMax: 8,
  choiceMaxChars: 100,
  /** how soon and how late a question's reply_by may be, after the service receives it */
  replyByMinSeconds: 60,
  replyByMaxDays: 30,
});

/** A credential: 64 lowercase hex characters (32 random bytes). */
export const CREDENTIAL_PATTERN = '^[0-9a-f]{64}$';
/** An Idempotency-Key's characters; its length is in BOUNDS. */
export const KEY_PATTERN = '^[A-Za-z0-9_.:-]+$';
/** A conversation id. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The self-declared metadata a client may send when opening a conversation. */
export const METADATA_KEYS = ['agent_name', 'model', 'framework'] as const;

/** open: waiting for the owner; answered: the owner wrote last; closed: the owner closed it. */
export const CONVERSATION_STATUSES = ['open', 'answered', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** A question's states: open until answered or past reply_by; superseded when a newer one came while it was open. */
export const QUESTION_STATES = ['open', 'answered', 'expired', 'superseded'] as const;
export type QuestionState = (typeof QUESTION_STATES)[number];

export const AUTHORS = ['client', 'owner'] as const;
export type Author = (typeof AUTHORS)[number];

/** An Idempotency-Key's rule in words, as every message and description says it. */
export const KEY_RULE =
  `${BOUNDS.idempotencyKeyMinLength} to ${BOUNDS.idempotencyKeyMaxLength} characters of A-Z a-z 0-9 _ . : -`;

/** The MCP door's tools, by name (doors/mcp/tool-list.ts describes them). */
export const TOOL_NAMES = [
  'search_directory',
  'get_listing',
  'open_conversation',
  'send_message',
  'check_updates',
  'read_messages',
  'get_conversation',
  'close_conversation',
  'set_webhook',
  'get_webhook',
  'delete_webhook',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
