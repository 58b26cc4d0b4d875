// The catalogue's refusals of what a request asks of a conversation (refusal.ts has them all):
// idempotency, state, the quotas and rates, push targets, and the owner script's own.

import { entry, retryAfter } from './entry.ts';
import type { Terms } from './terms.ts';

export const CONVERSATION_REFUSALS = {
  creation_key_used: entry(409, ['open'], 'The creation key was used before; the credential is never issued again.',
    (t: Terms) =>
      `This ${t.key} already opened a conversation. Its credential was shown once and is never issued again; ` +
      'if the response was lost, open a new conversation with a new key.',
  ),
  follow_up_key_conflict: entry(409, ['follow'], 'The follow-up key was used for a different message.',
    (t: Terms) =>
      `This ${t.key} was already used for a different message in this conversation. ` +
      `Use a new ${t.key} for each new message.`,
  ),
  conversation_closed: entry(410, ['follow'], 'The owner closed the conversation.',
    () =>
      'The owner closed this conversation; it can still be read, but takes no new messages. ' +
      'Open a new conversation to continue.',
  ),
  daily_maximum: entry(429, ['open', 'follow'],
    'The shared daily maximum, less the reserve kept for the owner, is reached (Retry-After: until 00:00 UTC).',
    (t: Terms, limit: number, reserve: number, _wait: number) =>
      `The service's shared maximum of ${limit} messages per UTC day is reached` +
      (reserve > 0 ? ` for agents (the last ${reserve} are kept for the owner's replies)` : '') +
      `. Nothing was stored; retry with the same ${t.key} after 00:00 UTC.`,
    (_limit: number, _reserve: number, wait: number) => retryAfter(wait),
  ),
  conversation_share: entry(429, ['follow'],
    "The conversation's share of the day is used (Retry-After: until 00:00 UTC).",
    (t: Terms, share: number, _wait: number) =>
      `This conversation has stored its share of ${share} messages for this UTC day, the most one conversation ` +
      `may store. Nothing was stored; retry with the same ${t.key} after 00:00 UTC.`,
    (_share: number, wait: number) => retryAfter(wait),
  ),
  address_share: entry(429, ['open', 'follow'],
    "The client address's share of the day is used (Retry-After: until 00:00 UTC).",
    (t: Terms, share: number, _wait: number) =>
      `Your address has stored its share of ${share} messages for this UTC day (openings and follow-ups together), ` +
      `the most one address may store. Nothing was stored; retry with the same ${t.key} after 00:00 UTC.`,
    (_share: number, wait: number) => retryAfter(wait),
  ),
  agent_share: entry(429, ['open', 'follow'],
    "A site's share of the day is used by its verified agents together (Retry-After: until 00:00 UTC).",
    (t: Terms, share: number, site: string, _wait: number) =>
      `The verified agents of your site (${site}, every identity under it together) have stored their share of ` +
      `${share} messages for this UTC day, the most one site may store. Nothing was stored; retry with the ` +
      `same ${t.key} after 00:00 UTC.`,
    (_share: number, _site: string, wait: number) => retryAfter(wait),
  ),
  unverified_pool: entry(429, ['open', 'follow'],
    'Unverified senders together have stored their pool of the day (Retry-After: until 00:00 UTC).',
    (t: Terms, pool: number, _wait: number) =>
      `Unsigned requests from all agents together have stored their ${pool} messages for this UTC day. Nothing ` +
      `was stored; retry with the same ${t.key} after 00:00 UTC, or sign your requests with Web Bot Auth: ` +
      'verified agents have a pool of their own.',
    (_pool: number, wait: number) => retryAfter(wait),
  ),
  verified_pool: entry(429, ['open', 'follow'],
    "Verified agents that are not the owner's contacts have together stored their pool of the day " +
      '(Retry-After: until 00:00 UTC).',
    (t: Terms, pool: number, _wait: number) =>
      `Verified agents the owner does not know yet have together stored their ${pool} messages for this UTC ` +
      `day. Nothing was stored; retry with the same ${t.key} after 00:00 UTC. The rest of the day is kept ` +
      "for the owner's contacts and the owner's replies.",
    (_pool: number, wait: number) => retryAfter(wait),
  ),
  signature_replayed: entry(401, ['open', 'follow'],
    'The Web Bot Auth signature already authorized a stored message: a signature authorizes one write.',
    (t: Terms) =>
      'This Web Bot Auth signature already authorized a stored message, and a signature authorizes one write. ' +
      `Nothing was stored. Sign each write anew (a new created time); a retry of the same message with the same ` +
      `${t.key} is answered as the duplicate it is, whatever it is signed with.`,
  ),
  signatures_full: entry(503, ['open', 'follow'],
    'The service remembers as many used signatures as it may (with Retry-After); nothing was stored.',
    (_t: Terms, most: number, _wait: number) =>
      `This service remembers the signatures of at most ${most} signed writes until they expire, and holds that ` +
      'many now. Nothing was stored; retry after the given seconds, or send the message unsigned.',
    (_most: number, wait: number) => retryAfter(wait),
  ),
  sender_blocked: entry(403, ['open', 'follow'], 'The owner blocked this sender (its agent, its site, or its address).',
    () => 'The owner has blocked you as a sender: your new conversations and messages are refused.',
  ),
  too_many_openings: entry(429, ['open'], 'Too many openings from one address in an hour (CREATE_LIMIT_PER_HOUR).',
    (_t: Terms, perHour: number, _wait: number) =>
      `At most ${perHour} conversations may be opened per hour from one address. ` +
      'Continue an existing conversation, or retry later.',
    (_perHour: number, wait: number) => retryAfter(wait),
  ),
  poll_too_soon: entry(429, ['updates'], 'Polled sooner than poll_after_seconds.',
    (t: Terms, interval: number, _wait: number) =>
      `Poll this conversation at most once every ${interval} seconds (${t.pollField}).`,
    (_interval: number, wait: number) => retryAfter(wait),
  ),

  too_many_push_configs: entry(400, ['a2a'], 'The task holds the most push notification configs it may.',
    (_t: Terms, max: number) => `A task holds at most ${max} push notification configs; delete one first.`,
  ),
  no_push_config: entry(404, ['a2a'], 'No push notification config of this task has that id.',
    () => 'This task has no push notification config with that id.',
  ),
  metrics_credential: entry(401, ['metrics'], 'GET /metrics without the METRICS_TOKEN as its Bearer credential.',
    () => 'Send the METRICS_TOKEN as Authorization: Bearer <token>.',
    () => ({ 'www-authenticate': 'Bearer' }),
  ),
  no_webhook: entry(404, ['webhook'], 'The conversation has no webhook registered.',
    () => 'This conversation has no webhook. Register one with PUT and {"url": "https://…"}.',
  ),
  url_refused: entry(400, ['webhook', 'a2a'],
    'A webhook or push notification URL breaks an outbound rule (https, a public address).',
    (t: Terms, rule: string, local: boolean) =>
      `The ${t.field} \`url\` cannot be used: ${rule}.` +
      (local
        ? ' To test with a receiver on your own machine (say on port 9000), run your own copy of this service ' +
          'with its host and port allowed: OUTBOUND_ALLOWED_HOSTS=127.0.0.1:9000 npm start.'
        : ''),
  ),
  outbound_busy: entry(503, ['webhook', 'a2a'],
    'Too many name lookups are under way to check the URL now (with Retry-After); nothing was stored.',
    () =>
      'The URL cannot be checked right now: too many name lookups are under way. Nothing was stored; retry shortly.',
    () => retryAfter(5),
  ),
  wait_too_long: entry(400, ['updates', 'mcp'], '`wait` is not a whole number of seconds in range.',
    (t: Terms, max: number) =>
      `The ${t.param} \`wait\` must be a whole number of seconds from 0 to ${max}: ` +
      'longer waits would outlast the poll interval, and proxies and clients give up on them.',
  ),

  no_such_conversation: entry(404, ['owner'], '',
    (_t: Terms, prefix: string) => `No conversation has an id starting with ${prefix}.`,
  ),
  ambiguous_id: entry(400, ['owner'], '',
    (_t: Terms, prefix: string) => `More than one conversation starts with ${prefix}; give more characters.`,
  ),
  already_closed: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is already closed.`,
  ),
  not_closed: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is not closed.`,
  ),
  already_blocked: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is already blocked.`,
  ),
  not_blocked: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is not blocked.`,
  ),
  no_sender: entry(409, ['owner'], '',
    (_t: Terms, id: string) =>
      `Conversation ${id} was opened before senders were recorded, so its sender cannot be blocked; ` +
      'block the conversation alone.',
  ),
  sender_not_blocked: entry(409, ['owner'], '',
    (_t: Terms, id: string) => `The sender of conversation ${id} is not blocked.`,
  ),
  site_not_blocked: entry(409, ['owner'], '',
    (_t: Terms, site: string) => `The site ${site} is not blocked.`,
  ),
  not_a_site: entry(400, ['owner'], '',
    (_t: Terms, given: string, why: string) => `${given} is not a site: ${why}.`,
  ),
  unverified_opening: entry(409, ['owner'], '',
    (_t: Terms, id: string) =>
      `Conversation ${id} was opened unsigned, so there is no verified agent to trust; only an agent that ` +
      'signs its requests (Web Bot Auth) can be a contact.',
  ),
  not_a_contact: entry(409, ['owner'], '',
    (_t: Terms, who: string) => `${who} is not a contact.`,
  ),
  reply_to_closed: entry(410, ['owner'], '',
    (_t: Terms, id: string) => `Conversation ${id} is closed; reopen it first.`,
  ),
  no_open_question: entry(409, ['owner'], '',
    (_t: Terms, id: string, why: string) =>
      `Conversation ${id} has no open question (${why}); reply without --choose.`,
  ),
  question_expired: entry(409, ['owner'], '',
    (_t: Terms, seq: number, replyBy: string) =>
      `The question #${seq} expired at ${replyBy}, so no choice is sent after it; reply without --choose.`,
  ),
  no_choices: entry(409, ['owner'], '',
    (_t: Terms, seq: number) =>
      `The question #${seq} has no choices, only a reply-by time; reply without --choose.`,
  ),
  no_such_choice: entry(400, ['owner'], '',
    (_t: Terms, given: string, seq: number, count: number) =>
      `The question #${seq} has no choice ${JSON.stringify(given)}; give a number from 1 to ${count}, ` +
      "or a choice's text as `show` prints it.",
  ),
  owner_daily_maximum: entry(429, ['owner'], '',
    (_t: Terms, limit: number) => `Today's shared maximum of ${limit} messages is reached; add --force to send anyway.`,
  ),
};
