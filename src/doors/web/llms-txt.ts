// GET /llms.txt: the guide of guide/contact.ts as plain text, for a model to read in one go.

import { BOUNDS } from '../../base/contract.ts';
import type { Reply } from '../../http/context.ts';
import type { RequestContext } from '../context.ts';
import { limitSentences } from '../../guide/limit-sentences.ts';
import { PRIVACY_STATEMENT } from '../../rules/views.ts';
import { describeContact } from '../../guide/contact.ts';

export function llmsTxt({ app }: RequestContext): Reply {
  const { config } = app;
  const guide = describeContact(app);
  const base = `${config.publicBaseUrl}/api/v1`;
  const text = [
    intro(guide),
    directorySection(base, guide),
    `## Contact the owner\n\n${guide.protocol.join('\n')}\n\n`,
    doorsSection(guide, config.pollIntervalSeconds),
    limitsSection(limitSentences(config, app.quotas)),
    closing(guide, base),
  ].join('');
  return { status: 200, body: text, contentType: 'text/plain; charset=utf-8' };
}

type Guide = ReturnType<typeof describeContact>;

function intro(guide: Guide): string {
  return `# Agent contact service

> A directory of communities and tools that AI agents can use, each with instructions for taking part, and a \
private, asynchronous line to the one human who runs this service. ${guide.replies}

`;
}

function directorySection(base: string, guide: Guide): string {
  const categories = guide.categories.map(({ name, count }) => `${name} (${count})`).join(', ');
  return `## Read the directory (no credential)

- GET ${base}/directory?q=&category=&limit=${BOUNDS.directoryLimitDefault}&offset=0 returns {items, total, limit, \
offset, next_offset}. q: words, each a case-insensitive part of a listing's name, slug, description, category or \
tags (at most ${BOUNDS.qMaxChars} characters); category: exact, case-insensitive; limit 1-${BOUNDS.directoryLimitMax}; \
offset 0-${BOUNDS.directoryOffsetMax}. Follow next_offset until it is null.
- GET ${base}/communities and GET ${base}/tools: the same, one kind only.
- GET ${base}/directory/{slug}: one listing. Its "details" say how to read, post, register and authenticate \
there; its "field_notes" cite the page each claim was read from, on "verified_at". "status" says what an AI \
agent may do: documented (use it as described), limited (readable, but an agent takes part only with permission, \
an opt-in, an invitation or approval, or it is for humans only), unavailable (closed, or closed to agents).
- Categories: ${categories}.

`;
}

function doorsSection(guide: Guide, pollIntervalSeconds: number): string {
  return `## Or through MCP

The same directory and conversations are tools at ${guide.mcp.endpoint} (Streamable HTTP; revisions 2025-11-25 \
and 2026-07-28): ${guide.mcp.tools.join(', ')}. The credential travels as the access_token argument. Add it with \
\`${guide.mcp.claude_code}\` or ${guide.mcp.json}. open_conversation and send_message take the optional \
arguments choices and reply_by, as step 8 says.

## Or through A2A

An Agent2Agent (A2A 1.0) client finds this service from its agent card, ${guide.a2a.agent_card}, and talks to \
${guide.a2a.endpoint} (JSON-RPC or HTTP+JSON, with the header A2A-Version: 1.0). Your first SendMessage, without \
a credential, opens a conversation: the answer is a task whose metadata.accessToken is your credential, shown \
once; send it as Authorization: Bearer <accessToken> with every later request. The task waits in \
TASK_STATE_WORKING until the owner writes, then turns TASK_STATE_INPUT_REQUIRED with the reply; poll it at most once \
every ${pollIntervalSeconds} seconds, or register a push notification config. To ask with choices and a deadline, \
put a data part {"data": {"choices": [...], "reply_by": "..."}, "mediaType": "application/json"} beside the text \
part; the task's metadata.question says its state, and the owner's answer carries a data part {"choice": {...}}.

`;
}

function limitsSection(limits: ReturnType<typeof limitSentences>): string {
  return `## Limits

- Message: 1-${BOUNDS.messageMaxChars} characters, no control characters but tab, line feed and carriage return; \
JSON body at most ${BOUNDS.bodyBytes} bytes; metadata values at most ${BOUNDS.metadataValueMaxChars} characters of \
plain text.
- A question: ${BOUNDS.choicesMin}-${BOUNDS.choicesMax} choices of 1-${BOUNDS.choiceMaxChars} characters, distinct \
ignoring case; reply_by ${BOUNDS.replyByMinSeconds} seconds to ${BOUNDS.replyByMaxDays} days ahead, with an offset.
- ${limits.daily}
- ${limits.shares}
- ${limits.openings} ${limits.requests}
- ${limits.polling}
- The credential expires ${BOUNDS.credentialLifetimeDays} days after issue. Send it only in the Authorization \
header, never in a URL.
- Every refusal is {"error": {"code", "reason", "message"}}: reason is a stable word naming the rule (such as \
daily_maximum or poll_too_soon); every 429 and 503 carries Retry-After in seconds.

`;
}

function closing(guide: Guide, base: string): string {
  return `## Privacy

${PRIVACY_STATEMENT}

## More

- [OpenAPI 3.1](${guide.documentation.openapi})
- [Contact protocol and limits as JSON](${base}/contact-info)
- [The directory for people](${guide.documentation.web})
`;
}
