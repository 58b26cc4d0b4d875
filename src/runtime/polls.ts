// Polling for a reply, as every door that offers it does it (REST updates, MCP check_updates,
// A2A GetTask and ListTasks): the poll judged once on the conversation's one poll clock
// (rules/rates.ts), then answered at once, or held until the owner writes or the wait ends
// (waits.ts).

import { refuse } from '../refusals/refusal.ts';
import { usableConversation } from '../rules/access.ts';
import { updatesResult } from '../rules/views.ts';
import type { Conversation } from '../store/store.ts';
import type { App } from './app.ts';

const LONGEST_WAIT_SECONDS = 55; // when polling is not limited: below the usual 60 s of proxies and clients

type UpdatesResult = ReturnType<typeof updatesResult>;

/** The longest `wait` a poll may ask for: the poll interval less its grace, so chained waits never see 429. */
export function maxWaitSeconds(pollIntervalSeconds: number): number {
  const gap = Math.max(0, pollIntervalSeconds - 5);
  return gap > 0 ? gap : LONGEST_WAIT_SECONDS;
}

/** Whether a poll has something to say at once: an owner message after `after`, or a close. */
function hasNews(conversation: Conversation, after: number): boolean {
  return conversation.latest_owner_seq > after || conversation.status === 'closed';
}

/** What a poll answered at once tells, for the poll clock to know it when asked again; null: nothing. */
function newsOf(conversation: Conversation, after: number): string | null {
  return hasNews(conversation, after) ? `${conversation.latest_owner_seq} ${conversation.status}` : null;
}

/**
 * Judges a poll of the conversation, whichever door it came through, and records it on the
 * conversation's one poll clock: 429 when it is too soon. Returns whether it is to be held
 * until the owner writes: only when it asked to wait, has nothing to say yet, and there is
 * room (past the bound it is answered as a plain poll). A wait answered at once with news
 * counts as the wait it asked for (chained waits meet no 429), unless the previous poll had
 * already brought that news (rules/rates.ts); every poll records the news it brings.
 */
export function takePoll(app: App, conversation: Conversation, after: number, waitSeconds: number): boolean {
  const news = newsOf(conversation, after);
  const held = waitSeconds > 0 && news === null && app.waits.hasRoom();
  const wait = app.rates.polls.take(conversation.id, app.now(), { waitSeconds, held, news });
  if (wait > 0) throw refuse('poll_too_soon', app.config.pollIntervalSeconds, wait);
  return held;
}

/**
 * The Updates result for a validated poll: at once, or, when it may wait and has nothing to
 * say yet, once the owner writes.
 */
export function pollUpdates(
  app: App,
  conversation: Conversation,
  after: number,
  waitSeconds: number,
  whenGone: () => AbortSignal,
): UpdatesResult | Promise<UpdatesResult> {
  if (takePoll(app, conversation, after, waitSeconds)) {
    return heldUntilNews(app, conversation, after, waitSeconds, whenGone);
  }
  return updatesResult(conversation, after, app.config.pollIntervalSeconds);
}

async function heldUntilNews(
  app: App,
  conversation: Conversation,
  after: number,
  waitSeconds: number,
  whenGone: () => AbortSignal,
): Promise<UpdatesResult> {
  const held = await app.waits.wait(conversation, after, waitSeconds, whenGone());
  const told = held.conversation ? newsOf(held.conversation, after) : null;
  app.rates.polls.release(conversation.id, app.now(), held.ownerWrote, told);
  // Refused as a new poll would be, if it must be: purged, blocked or expired while it waited.
  const now = usableConversation(held.conversation, app.now());
  return updatesResult(now, after, app.config.pollIntervalSeconds);
}
