// How each door names what a client sends, so that one catalogue entry (refusal.ts) is worded
// in every door's own terms: REST names headers, MCP names tool arguments, the pages name what a
// person sees. The A2A door's terms are beside its errors (doors/a2a/errors.ts).

/** How a door names what a client sends. */
export const REST_TERMS = {
  key: 'Idempotency-Key',
  credential: 'exactly one header Authorization: Bearer <access_token>',
  field: 'field',
  param: 'query parameter',
  body: 'request body',
  id: 'conversation id in the path',
  directory: 'GET /api/v1/directory',
  token: 'access_token from the creation response',
  pollField: 'poll_after_seconds',
};
export type Terms = typeof REST_TERMS;
export const MCP_TERMS: Terms = {
  key: 'idempotency_key',
  credential: 'the access_token argument',
  field: 'argument',
  param: 'argument',
  body: 'tool arguments',
  id: 'argument `conversation_id`',
  directory: 'search_directory',
  token: 'access_token from the open_conversation result',
  pollField: 'poll_after_seconds',
};

/** How the web pages name things to a person reading them in a browser. */
export const PAGE_TERMS: Terms = { ...REST_TERMS, directory: 'The directory on the home page' };
