// Questions with choices and a reply-by time, decided once for every door and the owner script: what
// a valid question is, the state of each question given the messages and the time, and which choice
// the owner's `--choose` picks. A client message that carries choices or reply_by is a question; the
// newest one is open until the owner answers it or its reply_by passes, and a newer question
// supersedes one still open. A question with choices is answered only by a choice (a plain reply
// leaves it open); one with only a reply-by time has nothing to choose, so any owner reply answers it.

import { BOUNDS, type QuestionState } from '../base/contract.ts';
import { isoTime } from '../base/time.ts';
import { refuse } from '../refusals/refusal.ts';
import type { Message, Store } from '../store/store.ts';
import { codePointLength, controlIn } from './validate.ts';

/** A client's question as validated: its choices (trimmed) and its reply-by instant (epoch ms), null when absent. */
export interface QuestionInput {
  readonly choices: readonly string[] | null;
  readonly replyBy: number | null;
}
export const NO_QUESTION: QuestionInput = { choices: null, replyBy: null };

/** A question as clients and the owner read it. */
export interface QuestionView {
  readonly seq: number;
  readonly choices: string[] | null;
  readonly reply_by: string | null;
  readonly state: QuestionState;
}

/** The owner's choice, as the message that carries it records it. */
export interface Choice {
  readonly for_seq: number;
  readonly index: number;
  readonly text: string;
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DAY_MS = 86_400_000;

/** `choices`: absent or null, or 2 to 8 strings of 1 to 100 characters after trimming, distinct ignoring case. */
export function choicesOf(value: unknown, name = 'choices'): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw refuse('bad_choices', name, 'must be an array of strings, such as ["yes", "no"]');
  if (value.length < BOUNDS.choicesMin || value.length > BOUNDS.choicesMax) {
    const count = `${BOUNDS.choicesMin} to ${BOUNDS.choicesMax}`;
    throw refuse('bad_choices', name, `must hold ${count} choices, got ${value.length}`);
  }
  const seen = new Map<string, number>();
  return value.map((item: unknown, i) => {
    const which = `choice ${i + 1}`;
    if (typeof item !== 'string') throw refuse('bad_choices', name, `must hold only strings (${which} is not one)`);
    const choice = item.trim();
    const length = codePointLength(choice);
    if (length < 1 || length > BOUNDS.choiceMaxChars)
      throw refuse('bad_choices', name, `has ${which} of ${length} characters after trimming`);
    const control = controlIn(choice); // a choice is one line of plain text: no tab or line feed either
    if (control !== null) throw refuse('bad_choices', name, `has ${which} holding a control character ${control}`);
    if (!choice.isWellFormed()) throw refuse('bad_choices', name, `has ${which} holding a lone surrogate escape`);
    const twin = seen.get(choice.toLowerCase());
    if (twin !== undefined) throw refuse('bad_choices', name, `has ${which} alike to choice ${twin} (case is ignored)`);
    seen.set(choice.toLowerCase(), i + 1);
    return choice;
  });
}

/** `reply_by`'s form: absent or null, or an RFC 3339 date-time with an offset; its instant in epoch ms. */
export function replyByOf(value: unknown, name = 'reply_by'): number | null {
  if (value === undefined || value === null) return null;
  const instant = typeof value === 'string' ? instantOf(value) : undefined;
  if (instant === undefined)
    throw refuse('bad_reply_by', name, 'must be an RFC 3339 date-time with an offset, such as 2026-12-01T14:00:00Z');
  return instant;
}

/** An RFC 3339 date-time with an offset in epoch ms (past the millisecond dropped); undefined if it is none. */
function instantOf(text: string): number | undefined {
  const m = RFC_3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, ...number[]];
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const [offsetHours, offsetMinutes] = [Number(m[9] ?? 0), Number(m[10] ?? 0)];
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month! - 1, day);
  date.setUTCHours(hour!, minute, second, ms);
  const same = date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day;
  if (!same) return undefined; // February 30th
  return date.getTime() - (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/** Both fields of a question, from wherever a door found them. */
export function questionOf(choices: unknown, replyBy: unknown, names = { choices: 'choices', replyBy: 'reply_by' }) {
  return { choices: choicesOf(choices, names.choices), replyBy: replyByOf(replyBy, names.replyBy) };
}

/**
 * reply_by judged against the moment the service takes the message (`at`): from 60 s to 30 days later.
 * Judged inside the write, after idempotency: an identical retry is answered from its record.
 */
export function refuseReplyByOutOfRange(question: QuestionInput, at: number): void {
  if (question.replyBy === null) return;
  const ahead = question.replyBy - at;
  const now = `it is now ${isoTime(at)}`;
  if (ahead < BOUNDS.replyByMinSeconds * 1000) {
    const when = ahead <= 0 ? 'is not in the future' : `is only ${Math.floor(ahead / 1000)} seconds away`;
    throw refuse('bad_reply_by', 'reply_by', `${when} (${now})`);
  }
  if (ahead > BOUNDS.replyByMaxDays * DAY_MS)
    throw refuse('bad_reply_by', 'reply_by', `is more than ${BOUNDS.replyByMaxDays} days away (${now})`);
}

/** The columns a question is stored in. */
export function questionColumns(question: QuestionInput): { choices: string | null; reply_by: string | null } {
  return {
    choices: question.choices === null ? null : JSON.stringify(question.choices),
    reply_by: question.replyBy === null ? null : isoTime(question.replyBy),
  };
}

/** Whether a stored message carries the same question (an idempotent retry must). */
export function sameQuestion(stored: Message, question: QuestionInput): boolean {
  const columns = questionColumns(question);
  return (stored.choices ?? null) === columns.choices && (stored.reply_by ?? null) === columns.reply_by;
}

export function isQuestion(message: Message): boolean {
  return message.author === 'client' && (message.choices != null || message.reply_by != null);
}

/** A question's stored reply_by; null when it has none, or when it is damaged (a crafted restore). */
export function storedReplyBy(message: Message): string | null {
  const replyBy = message.reply_by ?? null;
  return replyBy !== null && Number.isFinite(Date.parse(replyBy)) ? replyBy : null;
}

/** A stored question as clients and the owner are shown it: its choices and reply_by, each null when none. */
export function askedOf(message: Message): { choices: string[] | null; reply_by: string | null } {
  return { choices: storedChoices(message), reply_by: storedReplyBy(message) };
}

/** A question's stored choices; null when it has none, or when they are damaged (a crafted restore). */
export function storedChoices(message: Message): string[] | null {
  if (message.choices == null) return null;
  try {
    const value: unknown = JSON.parse(message.choices);
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;
  } catch {
    return null;
  }
}

/** The choice an owner message records, or null. */
export function choiceOf(message: Message): Choice | null {
  const { choice_for_seq: forSeq, choice_index: index, choice_text: text } = message;
  return forSeq == null || index == null || text == null ? null : { for_seq: forSeq, index, text };
}

/** Whether an owner message answers the question: with its choice, or, for one without choices, at all. */
export function answers(message: Message, question: Message): boolean {
  if (message.author !== 'owner' || message.seq <= question.seq) return false;
  return storedChoices(question) === null ? true : message.choice_for_seq === question.seq;
}

/**
 * A question's state at `now`, given the owner message that first answered it and the next question
 * (each or none): answered before its reply_by and before the next question came; superseded when
 * the next came while it was open; expired once reply_by has passed; else open.
 */
export function questionState(
  question: Message,
  answer: Message | undefined,
  next: Message | undefined,
  now: number,
): QuestionState {
  const replyBy = storedReplyBy(question);
  const deadline = replyBy === null ? Infinity : Date.parse(replyBy);
  const nextAt = next === undefined ? Infinity : Date.parse(next.created_at);
  const answeredAt =
    answer !== undefined && (next === undefined || answer.seq < next.seq) ? Date.parse(answer.created_at) : Infinity;
  if (answeredAt < deadline) return 'answered';
  if (nextAt < deadline) return 'superseded';
  return now >= deadline ? 'expired' : 'open';
}

export function viewOf(question: Message, state: QuestionState): QuestionView {
  return { seq: question.seq, ...askedOf(question), state };
}

/** The conversation's newest question with its state at `now` (never superseded: none is newer), or null. */
export function currentQuestion(store: Store, conversationId: string, now: number): QuestionView | null {
  const question = store.questions.newest(conversationId);
  if (question === undefined) return null;
  const answer = store.questions.answer(conversationId, question.seq, storedChoices(question) === null);
  return viewOf(question, questionState(question, answer, undefined, now));
}

/** Every question among a conversation's messages (all of them, in order), with its state at `now`, by seq. */
export function questionsIn(messages: readonly Message[], now: number): Map<number, QuestionView> {
  const questions = messages.filter(isQuestion);
  return new Map(
    questions.map((question, i) => {
      const answer = messages.find((message) => answers(message, question));
      return [question.seq, viewOf(question, questionState(question, answer, questions[i + 1], now))];
    }),
  );
}

/** The open question's reply_by in epoch ms, when it has one still to come; else null. */
export function openDeadline(question: QuestionView | null): number | null {
  return question?.state === 'open' && question.reply_by !== null ? Date.parse(question.reply_by) : null;
}

/**
 * The choice the owner's `--choose` names for the conversation's open question at `now`: a whole
 * number is the choice's number (from 1), anything else the choice's text (case ignored, as choices
 * are told apart). Refused when there is no open question, when it has no such choice or none at
 * all, and once its reply_by has passed: an agent never gets a choice after its deadline.
 */
export function chosen(store: Store, conversationId: string, given: string, now: number): Choice {
  const question = currentQuestion(store, conversationId, now);
  if (question === null) throw refuse('no_open_question', conversationId, 'the agent asked none');
  if (question.state === 'expired') throw refuse('question_expired', question.seq, question.reply_by as string);
  if (question.state === 'answered')
    throw refuse('no_open_question', conversationId, `the question #${question.seq} is answered`);
  const choices = question.choices;
  if (choices === null) throw refuse('no_choices', question.seq);
  const typed = given.trim();
  const number = /^\d{1,3}$/.test(typed) ? Number(typed) : 0;
  const index =
    number >= 1 && number <= choices.length
      ? number - 1
      : choices.findIndex((choice) => choice.toLowerCase() === typed.toLowerCase());
  if (index === -1) throw refuse('no_such_choice', given.slice(0, 60), question.seq, choices.length);
  return { for_seq: question.seq, index, text: choices[index] as string };
}
