// Polling for a reply, as every door that offers it does it (REST updates, MCP check_updates,
// A2A GetTask and ListTasks): the poll judged once on the conversation's one poll clock
// (rules/rates.ts), then answered at once, or held until the owner writes, the open question's
// reply_by comes, or the wait ends (waits.ts).

import { refuse } from '../refusals/refusal.ts';
import { usableConversation } from '../rules/access.ts';
import { updatesResult } from '../rules/views.ts';
import { describeError } from '../base/log.ts';
import { currentQuestion, openDeadline, type QuestionView } from '../rules/questions.ts';
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

/** The conversation's news, as the poll clock compares what an answer told: the owner's newest seq, a close. */
function newsOf(conversation: Conversation): string {
  return `${conversation.latest_owner_seq} ${conversation.status === 'closed' ? 'closed' : 'open'}`;
}

/**
 * Judges a poll of the conversation, whichever door it came through, and records it on the
 * conversation's one poll clock: 429 when it is too soon and has no news to tell (rules/rates.ts).
 * Returns whether it is to be held until the owner writes: only when it asked to wait, has
 * nothing to say yet, and there is room (past the bound it is answered as a plain poll).
 */
export function takePoll(app: App, conversation: Conversation, after: number, waitSeconds: number): boolean {
  const answersWithNews = hasNews(conversation, after);
  const held = waitSeconds > 0 && !answersWithNews && app.waits.hasRoom();
  const poll = { waitSeconds, held, answersWithNews, news: newsOf(conversation) };
  const wait = app.rates.polls.take(conversation.id, app.now(), poll);
  if (wait > 0) throw refuse('poll_too_soon', app.config.pollIntervalSeconds, wait);
  return held;
}

/**
 * The Updates result for a validated poll: at once, or, when it may wait and has nothing to
 * say yet, once the owner writes or the open question's reply_by comes.
 */
export function pollUpdates(
  app: App,
  conversation: Conversation,
  after: number,
  waitSeconds: number,
  whenGone: () => AbortSignal,
): UpdatesResult | Promise<UpdatesResult> {
  const held = takePoll(app, conversation, after, waitSeconds); // a poll refused reads nothing more
  const question = currentQuestion(app.store, conversation.id, app.now());
  if (held) return heldUntilNews(app, conversation, after, { seconds: waitSeconds, question }, whenGone);
  return updatesResult(conversation, after, app.config.pollIntervalSeconds, question);
}

/**
 * Held until the owner writes, or the wait's seconds pass; an open question whose reply_by comes
 * first ends it then, so an agent that waits on its own deadline learns of the expiry at once.
 */
async function heldUntilNews(
  app: App,
  conversation: Conversation,
  after: number,
  wait: { seconds: number; question: QuestionView | null },
  whenGone: () => AbortSignal,
): Promise<UpdatesResult> {
  const deadline = openDeadline(wait.question);
  const cut = deadline !== null && deadline - app.now() < wait.seconds * 1000;
  const seconds = cut ? Math.max(0, deadline - app.now()) / 1000 : wait.seconds;
  const held = await app.waits.wait(conversation, after, seconds, whenGone());
  const expired = cut && held.timedOut;
  const told = newsOf(held.conversation ?? conversation);
  // Ended by news (the owner wrote, the question expired): the next poll is let in at once.
  app.rates.polls.release(conversation.id, app.now(), held.ownerWrote || expired, told);
  // Refused as a new poll would be, if it must be: purged, blocked or expired while it waited.
  const now = usableConversation(held.conversation, app.now());
  // The timer ran to reply_by: the question is expired then, whatever a clock a millisecond behind says.
  const at = expired ? Math.max(app.now(), deadline) : app.now();
  const question = questionAt(app, now.id, at, expired ? { ...wait.question!, state: 'expired' } : wait.question);
  return updatesResult(now, after, app.config.pollIntervalSeconds, question);
}

/**
 * The question as the database holds it at `at`; when it cannot be read (a fault, a table a bad restore
 * removed), as it was when the poll began, so that the held poll is still answered, as waits.ts does.
 */
function questionAt(app: App, id: string, at: number, asked: QuestionView | null): QuestionView | null {
  try {
    return currentQuestion(app.store, id, at);
  } catch (err) {
    app.log({ time: new Date().toISOString(), level: 'error', task: 'waits', error: describeError(err) });
    return asked;
  }
}
