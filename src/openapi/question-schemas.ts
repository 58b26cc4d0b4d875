// The OpenAPI document's parts for questions (rules/questions.ts): the two fields a client message
// may carry, the question a conversation and an updates answer show, and the owner's choice. The MCP
// tools' input and output schemas use the same ones.

import { BOUNDS, QUESTION_STATES } from '../base/contract.ts';

const DATE_TIME = { type: 'string', format: 'date-time' };
const CHOICE_TEXT = { type: 'string', minLength: 1, maxLength: BOUNDS.choiceMaxChars };

/** `choices` as a client sends it: with `reply_by`, or alone, it makes the message a question. */
export const CHOICES_INPUT = {
  type: 'array',
  minItems: BOUNDS.choicesMin,
  maxItems: BOUNDS.choicesMax,
  items: CHOICE_TEXT,
  description:
    `Optional: ${BOUNDS.choicesMin} to ${BOUNDS.choicesMax} answers the owner can pick with one keystroke, each 1 ` +
    `to ${BOUNDS.choiceMaxChars} characters after trimming (stored trimmed), no control characters, no two alike ` +
    '(case is ignored). The owner\'s answer then carries `choice`, so you can act on it without reading prose.',
};

/** `reply_by` as a client sends it. */
export const REPLY_BY_INPUT = {
  ...DATE_TIME,
  description:
    'Optional: until when an answer is useful, an RFC 3339 date-time with an offset (Z or +hh:mm), from ' +
    `${BOUNDS.replyByMinSeconds} seconds to ${BOUNDS.replyByMaxDays} days after you send it; stored and shown in ` +
    'UTC. No choice is sent after it, and a waiting poll answers at it.',
};

/** The owner's answer to a question with a choice. */
export const CHOICE = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['for_seq', 'index', 'text'],
  properties: {
    for_seq: { type: 'integer', minimum: 1, description: "The question's seq." },
    index: { type: 'integer', minimum: 0, description: 'The choice\'s position in the question\'s `choices`, from 0.' },
    text: CHOICE_TEXT,
  },
  description: "On an owner message: the choice it answered a question with, or null (a reply in the owner's words).",
};

/** What a client message of a question carries beside its text. */
export const QUESTION_FIELDS = {
  choices: { type: ['array', 'null'], items: CHOICE_TEXT, description: "On a question: its choices, or null." },
  reply_by: { type: ['string', 'null'], format: 'date-time', description: 'On a question: its reply_by, or null.' },
  choice: CHOICE,
};

/** The conversation's newest question and its state, or null when the agent asked none. */
export const QUESTION = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['seq', 'choices', 'reply_by', 'state'],
  properties: {
    seq: { type: 'integer', minimum: 1 },
    choices: { type: ['array', 'null'], items: CHOICE_TEXT },
    reply_by: { type: ['string', 'null'], format: 'date-time' },
    state: { type: 'string', enum: QUESTION_STATES },
  },
  description:
    'The newest client message that carries choices or reply_by: open until the owner answers it (with a ' +
    'choice; a question without choices by any reply) or its reply_by passes (expired); answered; or null.',
};
