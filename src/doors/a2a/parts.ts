// A message's parts, both ways. In: exactly one text part, the message, and beside it at most one
// `data` part holding a question's `{"choices": [...], "reply_by": "..."}` (rules/questions.ts judges
// them as REST's fields). Out: one text part, and a `data` part where the message carries a question
// (its choices and reply_by) or the owner's choice (`{"choice": {...}}`).

import { askedOf, choiceOf, isQuestion, NO_QUESTION, questionOf, type QuestionInput } from '../../rules/questions.ts';
import { fieldsOf, messageText } from '../../rules/validate.ts';
import type { Message } from '../../store/store.ts';
import { a2aRefusal } from './errors.ts';

type Json = Record<string, unknown>;

const ONLY = 'Only one text part (mediaType text/plain or none) is accepted, and beside it one data part ' +
  '{"choices": [...], "reply_by": "..."} (mediaType application/json or none).';

const mediaTypeOf = (part: Json): string | undefined => {
  const value = part.mediaType ?? part.media_type;
  return value === '' ? undefined : (value as string | undefined);
};
const isText = (part: Json) => typeof part.text === 'string' && [undefined, 'text/plain'].includes(mediaTypeOf(part));
const isData = (part: Json) =>
  part.data !== undefined && part.text === undefined && [undefined, 'application/json'].includes(mediaTypeOf(part));

/** The parts' form, judged before anything else of the message: which part is the text, which the data. */
export interface CheckedParts {
  readonly parts: readonly Json[];
  readonly textAt: number;
  readonly dataAt: number;
}

const invalid = (sentence: string) => a2aRefusal('invalid_params', sentence);
const unsupported = () => a2aRefusal('unsupported_part', ONLY);

export function checkedParts(parts: unknown): CheckedParts {
  if (!Array.isArray(parts) || parts.length < 1 || parts.length > 2)
    throw invalid('`message.parts` must hold one text part, and at most one data part.');
  const objects = parts.map((part) => (typeof part === 'object' && part !== null && !Array.isArray(part) ? part : {}));
  if (!objects.every((part) => isText(part) || isData(part))) throw unsupported();
  const texts = objects.filter(isText).length;
  if (texts === 0) throw unsupported();
  if (texts > 1) throw invalid('`message.parts` must hold exactly one text part.');
  return { parts: objects, textAt: objects.findIndex(isText), dataAt: objects.findIndex(isData) };
}

/** The text of checked parts, and the question their data part asks (none without one). */
export function readParts({ parts, textAt, dataAt }: CheckedParts): { text: string; question: QuestionInput } {
  const text = messageText((parts[textAt] as Json).text, `message.parts[${textAt}].text`);
  if (dataAt === -1) return { text, question: NO_QUESTION };
  const where = `message.parts[${dataAt}].data`;
  const data = (parts[dataAt] as Json).data;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw invalid(`\`${where}\` must be an object: {"choices": [...], "reply_by": "..."}.`);
  const fields = fieldsOf(data, ['choices', 'reply_by']);
  const names = { choices: `${where}.choices`, replyBy: `${where}.reply_by` };
  return { text, question: questionOf(fields.choices, fields.reply_by, names) };
}

/** A stored message's parts: its text, and a data part with its question or the owner's choice. */
export function outboundParts(row: Message) {
  const text = { text: row.message, mediaType: 'text/plain' };
  const choice = row.author === 'owner' ? choiceOf(row) : null;
  if (choice !== null) return [text, { data: { choice }, mediaType: 'application/json' }];
  if (!isQuestion(row)) return [text];
  return [text, { data: askedOf(row), mediaType: 'application/json' }];
}
