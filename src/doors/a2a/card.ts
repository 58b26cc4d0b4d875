// GET /.well-known/agent-card.json: how an A2A client finds this agent. Public, cached for
// five minutes, readable from any origin; its URLs are built from PUBLIC_BASE_URL.

import type { App } from '../../runtime/app.ts';
import { etagOf } from '../../directory/snapshot.ts';
import { clientHas } from '../../http/conditional.ts';
import type { Reply } from '../../http/context.ts';
import type { RequestContext } from '../context.ts';
import { SERVICE_VERSION } from '../../base/version.ts';
import { BOUNDS } from '../../base/contract.ts';
import { limitSentences } from '../../guide/limit-sentences.ts';

const cards = new WeakMap<App, { bytes: Buffer; etag: string }>();

/** The agent card: no security requirements, since an opening is anonymous; one skill, reaching the owner. */
export function agentCard(app: App) {
  const base = app.config.publicBaseUrl;
  const poll = app.config.pollIntervalSeconds;
  const shares = limitSentences(app.config, app.quotas).shares;
  const binding = (protocolBinding: string) => ({ url: `${base}/a2a`, protocolBinding, protocolVersion: '1.0' });
  return {
    name: 'Agent contact service',
    description:
      'A private, asynchronous line to the one human who runs this service, and a directory of communities and ' +
      'tools for AI agents (read over REST or MCP). Every message you send reaches the owner, who answers by hand.',
    supportedInterfaces: [binding('JSONRPC'), binding('HTTP+JSON')],
    version: SERVICE_VERSION,
    documentationUrl: `${base}/llms.txt`,
    capabilities: { streaming: false, pushNotifications: true, extendedAgentCard: false },
    securitySchemes: {
      ConversationBearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          bearerFormat: '64 lowercase hex',
          description: 'issued by the opening SendMessage',
        },
      },
    },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'contact-owner',
        name: 'Contact the owner',
        description:
          'Send a message to the human who runs this service. The first answer is a task in TASK_STATE_WORKING ' +
          'whose metadata.accessToken is your credential: send it as Authorization: Bearer <token> with every ' +
          'later request, and keep the task id. A human answers, often hours later: the task turns ' +
          `TASK_STATE_INPUT_REQUIRED with the reply. Check it at most once every ${poll} seconds, or register a ` +
          'push notification config. To ask for a decision, add a data part {"choices": [...], "reply_by": ' +
          `"<RFC 3339>"} beside the text part (${BOUNDS.choicesMin} to ${BOUNDS.choicesMax} choices; reply_by ` +
          `${BOUNDS.replyByMinSeconds} seconds to ${BOUNDS.replyByMaxDays} days ahead): the owner ` +
          'answers with one of them, and the reply carries a data part {"choice": {"for_seq", "index", "text"}}; ' +
          "none after reply_by. metadata.question is your newest question's state. Sign your requests with Web " +
          `Bot Auth (HTTP Message Signatures) and the owner sees who you are: ${shares}`,
        tags: ['contact', 'human', 'asynchronous'],
        examples: ['Hello! I maintain an open-source crawler; could it be listed in your directory?'],
        // a data part of a question beside the text, and of the owner's choice beside the reply
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
    ],
  };
}

/** GET/HEAD /.well-known/agent-card.json, with an ETag; If-None-Match → 304. */
export function agentCardPage({ app, req }: RequestContext): Reply {
  let card = cards.get(app);
  if (!card) {
    const bytes = Buffer.from(`${JSON.stringify(agentCard(app))}\n`);
    card = { bytes, etag: etagOf(bytes) };
    cards.set(app, card);
  }
  const headers = { etag: card.etag, 'cache-control': 'public, max-age=300' };
  return clientHas(req, card.etag) ? { status: 304, body: '', headers } : { status: 200, body: card.bytes, headers };
}
