// The one way the owner script prints text that an agent (or a listing file) wrote. A terminal
// obeys escape sequences: an agent name holding ESC [ 1 A ESC [ 2 K would erase the line above,
// OSC 52 would fill the clipboard, U+202E would reverse what follows. So every control character
// (Unicode Cc: C0, DEL, C1), every format character (Cf: bidi controls, zero-width characters,
// the soft hyphen, tag characters, which a person cannot see and a model reads), the line and
// paragraph separators, private-use and unassigned code points (the unassigned tag characters
// among them) and the blank Hangul fillers are printed as a visible escape, `\x1b` or `\u202e`:
// the owner sees that they were sent, and the terminal does nothing with them.
// `--json` and `export` print the exact text; this is only for what a person reads.

import { deadlineWords } from './time.ts';

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\u115f\u1160\u3164\uffa0]/gu;

function escaped(character: string): string {
  const code = character.codePointAt(0) as number;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** Untrusted text on one line: a line feed too is shown as `\x0a`, never obeyed. */
export function shown(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/**
 * Untrusted text on one line, whitespace runs folded, cut at `max` characters (code points, so
 * that no character is cut in half), then shown: the cut never splits an escape either.
 */
export function shownShort(text: string, max: number): string {
  const flat = [...text.replace(/[ \t\r\n]+/g, ' ').trim()];
  return shown(flat.length > max ? `${flat.slice(0, max - 1).join('')}…` : flat.join(''));
}

// What starts each line of a message body: no line of a message can start where the script's
// own lines start, so none can pass for a header, a reply or "Stopped watching.".
export const BODY_PREFIX = '    | ';

/** A message body, each of its lines behind BODY_PREFIX; a carriage return is shown, not obeyed. */
export function shownBody(text: string): string {
  return text
    .split('\n')
    .map((line) => `${BODY_PREFIX}${shown(line)}`)
    .join('\n');
}

/**
 * Who wrote, as the owner reads it: the self-declared name (or that none was given), and the
 * identity a Web Bot Auth signature proved, `verified: https://agent.example` (or, for one of the
 * owner's contacts, `contact: https://agent.example`), or `(unverified)`.
 */
export function senderLabel(agentName: string | null, verifiedAgent: string | null, contact = false): string {
  const name = agentName ? shownShort(agentName, 40) : '(no name given)';
  if (verifiedAgent !== null) return `${name} (${verifiedLabel(verifiedAgent, contact)})`;
  return agentName ? `${name} (unverified)` : name;
}

/**
 * A verified identity as the owner reads it, spelled as everywhere else (the origin or URL, lower
 * case, default port omitted), whole: `verified: https://agent.example`, or `contact: …` for a contact.
 */
export function verifiedLabel(identity: string, contact = false): string {
  return `${contact ? 'contact' : 'verified'}: ${shown(identity)}`;
}

/** What the owner reads of a question: its choices, its reply-by time, and its state when known. */
export interface ShownQuestion {
  readonly choices: readonly string[] | null;
  readonly reply_by: string | null;
  /** open, answered, expired or superseded (rules/questions.ts); a new message's is open */
  readonly state: string;
}

/**
 * A question below its message, on lines of the script's own (the choices numbered from 1, each shown
 * as agents' text is): `    question, reply by 14:00 UTC (in 3 h):` then `      1. Tuesday`.
 */
export function shownQuestion(question: ShownQuestion, now: number): string {
  const deadline = question.reply_by === null ? 'no reply-by time' : deadlineWords(question.reply_by, now);
  const words: Record<string, string> = {
    open: deadline,
    expired: deadline,
    answered: 'answered',
    superseded: 'superseded by a newer question',
  };
  const header = `    question, ${words[question.state] ?? shown(question.state)}${question.choices ? ':' : ''}`;
  return [header, ...shownChoices(question.choices ?? [], '      ')].join('\n');
}

/** Choices numbered from 1 as `--choose` takes them, each shown as agents' text is: `1. Tuesday`. */
export function shownChoices(choices: readonly string[], indent = ''): string[] {
  return choices.map((choice, i) => `${indent}${i + 1}. ${shown(choice)}`);
}
