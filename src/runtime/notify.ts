// NOTIFY_COMMAND: tells the owner about each new client message by running a program
// (no shell) with the details in its environment and the message on stdin, both already made
// safe by the function that prints agents' text on the owner's terminal (base/terminal.ts): no
// notifier can pass an agent's control, format or invisible character on. It never delays or
// fails the client's request; its failures are only logged.
//
// One run at a time, in the order the messages were stored: a burst of messages must not
// start a burst of processes on a small machine, and a notifier that appends to a file
// must not see its entries interleaved with another run's.

import { spawn } from 'node:child_process';
import type { Log } from '../base/log.ts';
import { senderLabel, shown, shownBody, shownChoices, shownQuestion } from '../base/terminal.ts';
import { isoTime } from '../base/time.ts';

/** What the owner is told of: a new client message, or the agent closing its conversation. */
export interface NewClientMessage {
  /** 'message' (the default) or 'closed': the agent closed the conversation */
  readonly event?: 'message' | 'closed';
  readonly conversationId: string;
  /** the message's seq; for a close, the conversation's last */
  readonly seq: number;
  readonly agentName: string;
  /** the identity that signed it (Web Bot Auth), or null */
  readonly verifiedAgent: string | null;
  /** whether that identity is one of the owner's contacts */
  readonly contact: boolean;
  /** the message; for a close, what happened, in words */
  readonly message: string;
  /** a question's choices and reply-by time (ISO 8601, UTC), each null when it has none */
  readonly choices?: readonly string[] | null;
  readonly replyBy?: string | null;
}

// A hung notifier is killed rather than holding up the rest: with SIGKILL, which it cannot ignore.
const NOTIFY_TIMEOUT_MS = 30_000;
// Waiting notifications, at most: more than a default day's 500 messages. Past this the
// notifier cannot keep up, and the newest are dropped (and logged) rather than kept in memory.
const MAX_WAITING_NOTIFICATIONS = 1000;

/** The limits; tests lower them to see each one act without waiting 30 s or queueing a thousand messages. */
const NOTIFIER_LIMITS = { maxWaiting: MAX_WAITING_NOTIFICATIONS, timeoutMs: NOTIFY_TIMEOUT_MS };

/** Tells the owner of one event; it never throws and never waits. */
export type Notifier = (event: NewClientMessage) => void;

/** The notifier that runs `command` (NOTIFY_COMMAND, split on spaces) for each event, one run at a time. */
export function createNotifier(
  command: readonly string[],
  log: Log,
  { maxWaiting, timeoutMs } = NOTIFIER_LIMITS,
): Notifier {
  const waiting: NewClientMessage[] = [];
  let running = false;

  const failed = (event: NewClientMessage, reason: string) =>
    log({
      time: isoTime(Date.now()),
      level: 'error',
      notify: 'failed',
      conversation_id: event.conversationId,
      seq: event.seq,
      reason,
    });

  function runNext(): void {
    const event = waiting.shift();
    running = event !== undefined;
    if (event === undefined) return;
    let finished = false; // 'exit' may follow 'error': go on to the next run once
    runNotifier(command, event, timeoutMs, (reason) => {
      if (finished) return;
      finished = true;
      if (reason !== null) failed(event, reason);
      runNext();
    });
  }

  return (event) => {
    if (waiting.length >= maxWaiting) {
      failed(event, `${maxWaiting} notifications are already waiting; this one was dropped`);
      return;
    }
    waiting.push(event);
    if (!running) runNext();
  };
}

/** Runs the notifier for one message; `finish` hears why it failed, or null, at least once. */
function runNotifier(
  command: readonly string[],
  event: NewClientMessage,
  timeoutMs: number,
  finish: (reason: string | null) => void,
): void {
  const [program, ...args] = command as [string, ...string[]];
  const env = {
    ...process.env,
    EVENT: event.event ?? 'message',
    CONVERSATION_ID: event.conversationId,
    MESSAGE_SEQ: event.event === 'closed' ? '' : String(event.seq),
    // Self-declared: control and format characters as visible escapes (a NUL could not be passed at all).
    AGENT_NAME: shown(event.agentName),
    // Proved by a signature, or empty; and both said as the owner's terminal says them.
    VERIFIED_AGENT: shown(event.verifiedAgent ?? ''),
    CONTACT: event.contact ? '1' : '',
    SENDER: senderLabel(event.agentName, event.verifiedAgent, event.contact),
    // A question's choices, one a line and numbered as `reply --choose` takes them; its reply-by time. Else empty.
    CHOICES: shownChoices(event.choices ?? []).join('\n'),
    REPLY_BY: event.replyBy ?? '',
  };
  let child;
  try {
    child = spawn(program, args, {
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
  } catch (err) {
    finish((err as Error).message);
    return;
  }
  child.on('error', (err) => finish(err.message));
  child.on('exit', (code, signal) =>
    finish(code === 0 ? null : signal ? `killed by ${signal}` : `exited with status ${code}`),
  );
  child.stdin.on('error', () => {}); // a notifier that ignores stdin closes the pipe early
  child.stdin.end(notifierText(event)); // as `show` prints it: escaped, each line behind its prefix
}

/** The message as `show` prints it, and below it the question, if it is one. */
function notifierText(event: NewClientMessage): string {
  const question = { choices: event.choices ?? null, reply_by: event.replyBy ?? null, state: 'open' };
  const asked = question.choices !== null || question.reply_by !== null;
  return `${shownBody(event.message)}\n${asked ? `${shownQuestion(question, Date.now())}\n` : ''}`;
}
