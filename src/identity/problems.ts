// What is wrong with a signed request, as the agent is told it: the one kind of error the identity
// parsers throw (anything else thrown is a bug of this code, not the client's), and how much of what
// the client sent a problem may repeat.

/** A signed request's headers that cannot be read or do not verify; its message says what to fix. */
export class HeaderProblem extends Error {
  override readonly name = 'HeaderProblem';
}

const EXCERPT_LIMIT = 100; // characters of what a client sent repeated in a problem, so it never carries a page

/** At most 100 characters of what a client sent, for a problem's text. */
export function excerpt(text: string): string {
  return text.length <= EXCERPT_LIMIT ? text : `${text.slice(0, EXCERPT_LIMIT)}…`;
}
