// Every refusal the service gives, in one catalogue: its status, which operations can give
// it (the OpenAPI document describes each status from here), when it is given, and the
// message that tells the client what to fix, worded by each door in its own terms. Each key is
// the refusal's stable reason, which every door's answers carry. The entries stand in three
// files by what they refuse; refusal.ts holds the mechanism: `throw refuse(reason, ...args)`.

import { CONVERSATION_REFUSALS } from './conversation-refusals.ts';
import { PROTOCOL_REFUSALS } from './protocol-refusals.ts';
import { REQUEST_REFUSALS } from './request-refusals.ts';

export const CATALOGUE = { ...REQUEST_REFUSALS, ...CONVERSATION_REFUSALS, ...PROTOCOL_REFUSALS };
