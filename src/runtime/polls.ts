// Polling for a reply, as every door that offers it does it (REST updates, MCP check_updates):
// the poll judged once, then answered at once, or held until the owner writes or the wait
// ends (waits.ts).

import type { App } from './app.ts';
import { afterWaiting, checkUpdates, newsOf } from '../rules/conversations.ts';
import { updatesResult } from '../rules/views.ts';
import type { Conversation } from '../store/store.ts';

const LONGEST_WAIT_SECONDS = 55; // when polling is not limited: below the usual 60 s of proxies and clients

/** The longest `wait` a poll may ask for: the poll interval less its grace, so chained waits never see 429. */
export function maxWaitSeconds(pollIntervalSeconds: number): number {
  const gap = Math.max(0, pollIntervalSeconds - 5);
  return gap > 0 ? gap : LONGEST_WAIT_SECONDS;
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
  const intervalSeconds = app.config.pollIntervalSeconds;
  // Held only when there is nothing to say yet, and room (past it, answered as a plain poll).
  // A wait answered at once with news counts as the wait it asked for (chained waits meet no
  // 429), unless the previous poll had already brought that news (poll clock, rules/rates.ts); every
  // poll records the news it brings.
  const news = newsOf(conversation, after);
  const holds = waitSeconds > 0 && news === null && app.waits.hasRoom();
  const request = { waitSeconds, held: holds, news };
  const poll = { clock: app.rates.polls, at: app.now(), intervalSeconds, request };
  const answer = checkUpdates(conversation, after, poll);
  return holds ? heldUntilNews(app, conversation, after, waitSeconds, whenGone) : answer;
}

type UpdatesResult = ReturnType<typeof updatesResult>;

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
  return updatesResult(afterWaiting(held.conversation, app.now()), after, app.config.pollIntervalSeconds);
}
