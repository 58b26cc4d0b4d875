// The owner's `agents`: the verified agents (Web Bot Auth identities) that have signed messages here,
// with how many conversations and messages they signed, today's messages against their share, and
// whether the owner blocked them. A verified identity is a name the operator proved it controls,
// not a promise of good behaviour: this is where the owner finds one that is too busy.

import type { Config } from '../base/config.ts';
import { shown } from '../base/terminal.ts';
import { utcDay } from '../base/time.ts';
import type { Store } from '../store/store.ts';
import { counted, quotasIn, when, type Command } from './shared.ts';

export const agentsCommands: Record<string, Command> = {
  agents: {
    usage: 'agents [--json]',
    options: { json: { type: 'boolean' } },
    summary:
      'the verified agents seen, newest first: their conversations and messages, today\'s messages against ' +
      'their share, and whether they are blocked (block one with block <id> --sender)',
    run: ({ values, store, config }) => agents(store, config, values.json === true),
  },
};

function agents(store: Store, config: Config, json: boolean): void {
  const day = utcDay(Date.now());
  const share = quotasIn(store, config).quotas.agentShare;
  const rows = store.owner.agents().map((agent) => ({
    ...agent,
    messages_today: store.quotaCounts.count(day, `agent:${agent.identity}`),
    share,
    blocked: store.senderBlocks.isBlocked(`agent:${agent.identity}`),
  }));
  if (json) return void console.log(JSON.stringify(rows, null, 2));
  if (rows.length === 0) return void console.log('No verified agent has written yet.');
  for (const row of rows) {
    const today = share === 0 ? `${row.messages_today} today` : `${row.messages_today} of ${share} today`;
    const counts = `${counted(row.conversations, 'conversation')}, ${counted(row.messages, 'message')}`;
    const mark = row.blocked ? 'BLOCKED ' : '        ';
    console.log(`${mark}${shown(row.identity)}  ${counts}, ${today}, last ${when(row.last_seen)}`);
  }
}
