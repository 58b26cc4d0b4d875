// What the MCP tools say of themselves: names, titles, descriptions written for a language
// model (with the limits as the server enforces them), input schemas from the contract's
// constants, output schemas from the OpenAPI document's, and annotations.

import type { RunningConfig } from '../../base/config.ts';
import { BOUNDS } from '../../base/contract.ts';
import { limitSentences } from '../../guide/limit-sentences.ts';
import { KINDS } from '../../directory/listing-fields.ts';
import { SCHEMAS } from '../../openapi/schemas.ts';
import { CHOICES_INPUT, REPLY_BY_INPUT } from '../../openapi/question-schemas.ts';
import type { Quotas } from '../../rules/quotas.ts';
import { maxWaitSeconds } from '../../runtime/polls.ts';
import { managingTools } from './managing-tools.ts';
import { CREDENTIAL, input, inlined, integer, KEY, MESSAGE, METADATA, READS, tool, writes } from './tool-schemas.ts';

/** What initialize and server/discover tell a model, in a few lines. */
export function instructions(config: RunningConfig): string {
  const poll = config.pollIntervalSeconds;
  return (
    'A directory of communities and tools for AI agents, and a private line to the one human who runs this ' +
    'service. Search the directory freely with search_directory and get_listing; they need no credential. ' +
    'To reach the owner, call open_conversation once with a new idempotency_key (a random UUID) and store the ' +
    'returned id and access_token at once, somewhere that outlives this session: the token is shown only then. ' +
    'Pass them as conversation_id and access_token to send_message (a new idempotency_key per message), ' +
    `check_updates (at most once every ${poll} seconds; its wait argument holds the call until the owner ` +
    `writes, up to ${mcpMaxWaitSeconds(poll)} seconds) and read_messages. Replies are written by a human, ` +
    'by hand, and may take hours or days; nothing answers automatically.'
  );
}

/** check_updates' longest wait: below the 60 s after which MCP clients usually give up on a call. */
export function mcpMaxWaitSeconds(pollIntervalSeconds: number): number {
  return Math.min(maxWaitSeconds(pollIntervalSeconds), 50);
}

/** search_directory's summaries: exactly these fields of a listing. */
export const SUMMARY_FIELDS = ['slug', 'kind', 'name', 'category', 'description', 'url', 'status'];
/** search_directory's page size when none is asked for: a model reads every result. */
export const SEARCH_LIMIT_DEFAULT = 10;

/** A question's two optional arguments, as REST's fields beside `message`. */
const QUESTION = { choices: CHOICES_INPUT, reply_by: REPLY_BY_INPUT };
const ASKING =
  'To ask for a decision, add choices (2 to 8 short answers) and/or reply_by (until when an answer is useful): ' +
  "the owner can then answer with one keystroke, the owner's message carries choice {for_seq, index, text} to " +
  'act on without reading prose, and no choice is ever sent after reply_by. A retry with the same ' +
  'idempotency_key must carry the same choices and reply_by.';

const listingProperties = SCHEMAS.Listing.properties as Record<string, object>;
const SUMMARY_PAGE = inlined({
  ...SCHEMAS.ListingPage,
  properties: {
    ...SCHEMAS.ListingPage.properties,
    items: {
      type: 'array',
      items: input(
        Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, listingProperties[field] as object])),
        SUMMARY_FIELDS,
      ),
    },
  },
});

/** The tools as tools/list shows them, for one running configuration. */
export function toolList(config: RunningConfig, quotas: Quotas) {
  const limits = limitSentences(config, quotas);
  return [
    ...directoryTools(),
    ...writingTools(limits),
    ...readingTools(config.pollIntervalSeconds),
    ...managingTools(),
  ];
}

/** Reading the public directory: no credential. */
function directoryTools() {
  return [
    {
      ...tool('search_directory', 'Search the directory', READS, SUMMARY_PAGE),
      description:
        "Search this service's public directory of communities and tools that AI agents can use: forums, social " +
        'networks, open data and research APIs, and more. Results are summaries; call get_listing with a slug for ' +
        'how to take part. `q` holds words: a listing matches when each word is a case-insensitive part of its ' +
        'name, slug, description, category or tags; `kind` and `category` filter exactly. An empty result lists ' +
        `the categories that exist. Up to ${BOUNDS.directoryLimitMax} results a page (default ` +
        `${SEARCH_LIMIT_DEFAULT}): follow next_offset until it is null. No credential needed.`,
      inputSchema: input({
        q: {
          type: 'string',
          maxLength: BOUNDS.qMaxChars,
          description: 'Words to look for, such as "weather" or "research papers".',
        },
        kind: { type: 'string', enum: KINDS },
        category: { type: 'string', description: 'An exact category, such as "research".' },
        limit: integer(1, BOUNDS.directoryLimitMax, `Results per page, default ${SEARCH_LIMIT_DEFAULT}.`),
        offset: integer(0, BOUNDS.directoryOffsetMax, 'Results to skip, from next_offset.'),
      }),
    },
    {
      ...tool('get_listing', 'Get a listing', READS, SCHEMAS.Listing),
      description:
        'Get one directory listing by its slug with everything an agent needs to take part there: registration, ' +
        'authentication, how to read and post, rate limits and pricing (in details and the other fields), and ' +
        'field_notes citing the documentation each claim was read from on verified_at. No credential needed.',
      inputSchema: input(
        { slug: { type: 'string', description: 'The slug from search_directory, such as "open-meteo".' } },
        ['slug'],
      ),
    },
  ];
}

/** Opening a conversation and following up: the writes, under the day's limits. */
function writingTools(limits: ReturnType<typeof limitSentences>) {
  return [
    {
      ...tool('open_conversation', 'Message the owner', writes(false), SCHEMAS.CreationResult),
      description:
        'Start a private conversation with the human who runs this service. Returns id and access_token: store ' +
        'both at once somewhere that outlives this session, since the token is shown only here and never again; ' +
        'pass them as conversation_id and access_token to the other conversation tools. If you lose them, open ' +
        'a new conversation and name the old id in your message. Replies are written by a human and may take ' +
        'hours or days. Pass a new idempotency_key (a random UUID): a retry with the same key is then refused ' +
        'instead of opening a second conversation (without one a retry may open a duplicate). Metadata is ' +
        'optional, self-declared and shown to the owner as unverified; requests to this server signed with Web Bot ' +
        'Auth (HTTP Message Signatures) make you a verified agent, shown to the owner by name (verified_agent in ' +
        "the result says so) and counted against your site's share, not your address's; sign each call anew, as " +
        `a signature authorizes one write. ${ASKING} ${limits.openings} ${limits.daily} ${limits.shares} ` +
        'A refusal says when to retry.',
      inputSchema: input({ message: MESSAGE, metadata: METADATA, idempotency_key: KEY, ...QUESTION }, ['message']),
    },
    {
      ...tool('send_message', 'Send a follow-up', writes(true), SCHEMAS.FollowUpResult),
      description:
        'Send a follow-up message in your conversation. Use a new idempotency_key for each message; after a ' +
        'network failure, retry with the same key and message: you get the stored message with duplicate true, ' +
        'never a second copy (without a key a retry may store it twice). Refused when the owner closed the ' +
        `conversation (open a new one), and over the day's limits (retry after retry_after_seconds). ${ASKING} ` +
        `A newer question replaces one still open (superseded). ${limits.daily} ${limits.shares}`,
      inputSchema: input({ ...CREDENTIAL, message: MESSAGE, idempotency_key: KEY, ...QUESTION }, [
        'conversation_id',
        'access_token',
        'message',
      ]),
    },
  ];
}

/** Learning of a reply and reading the conversation, with its credential. */
function readingTools(poll: number) {
  return [
    {
      ...tool('check_updates', 'Check for a reply', READS, SCHEMAS.Updates),
      description:
        'Check whether the owner has replied, without reading the messages: new_reply is true when an owner ' +
        'message has a seq greater than `after` (the last seq you read). With `wait` (up to ' +
        `${mcpMaxWaitSeconds(poll)} seconds, below the usual 60-second client time-out) the call is held until the ` +
        'owner writes or the wait ends, so you learn of a reply without calling again and again; when your open ' +
        'question\'s reply_by comes first, it answers then. `question` is your newest question and its state: ' +
        'open, answered (read the owner\'s message with its choice), expired (reply_by passed unanswered) or null. ' +
        (poll > 0
          ? `Check at most once every ${poll} seconds (a call that waits counts its wait toward that); sooner is ` +
            'refused with retry_after_seconds. '
          : '') +
        'Replies come from a human and may take hours: if there is none yet, check again later, then read it ' +
        'with read_messages.',
      inputSchema: input(
        {
          ...CREDENTIAL,
          after: integer(0, undefined, 'The last seq you have read; 0 at first.'),
          wait: integer(
            0,
            mcpMaxWaitSeconds(poll),
            'Seconds to wait for the owner to write before answering; 0 (the default) answers at once.',
          ),
        },
        ['conversation_id', 'access_token'],
      ),
    },
    {
      ...tool('read_messages', 'Read messages', READS, SCHEMAS.History),
      description:
        "Read your conversation's messages in order: those with a seq greater than `after` (0 for all), at most " +
        `\`limit\` (1 to ${BOUNDS.historyLimitMax}, default ${BOUNDS.historyLimitDefault}), each with seq, author ` +
        `(client or owner), message and created_at, and at most ${BOUNDS.pageTextBytes / 1024} KiB of message text ` +
        "in all. A question of yours also carries choices and reply_by; the owner's messages carry choice " +
        '({for_seq, index, text}: the choice at choices[index] of your message for_seq), or null. has_more says ' +
        'whether more follow after next_after.',
      inputSchema: input(
        {
          ...CREDENTIAL,
          after: integer(0, undefined, 'The last seq you have read; 0 for all.'),
          limit: integer(1, BOUNDS.historyLimitMax, `At most this many, default ${BOUNDS.historyLimitDefault}.`),
        },
        ['conversation_id', 'access_token'],
      ),
    },
    {
      ...tool('get_conversation', 'Get the conversation', READS, SCHEMAS.Conversation),
      description:
        "Get your conversation's record: status (open: waiting for the owner; answered: the owner wrote last; " +
        'closed: readable, but takes no new messages), last_seq, latest_owner_seq, message_count, the ' +
        "credential's expires_at, the metadata you declared, and question: your newest question ({seq, choices, " +
        'reply_by, state}, state open, answered or expired) or null.',
      inputSchema: input(CREDENTIAL, ['conversation_id', 'access_token']),
    },
  ];
}
