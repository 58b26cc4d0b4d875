// The owner's `agents`: the verified agents (Web Bot Auth identities) that have signed messages here,
// grouped by site (every identity of one registrable domain shares one share of the day): each site's
// messages today against that share, whether it is blocked or a contact, and under it each identity
// with the conversations it wrote in (their ids' first 8 characters, as they may be typed), its
// messages, and whether it is blocked or a contact. A verified identity is a name the operator proved
// it controls, not a promise of good behaviour: this is where the owner finds one that is too busy,
// or one to trust.

import type { Config } from '../base/config.ts';
import { siteOf } from '../base/sites.ts';
import { shown } from '../base/terminal.ts';
import { utcDay } from '../base/time.ts';
import type { AgentRow } from '../store/owner-queries.ts';
import type { Store } from '../store/store.ts';
import { quotasIn, type Command } from './command.ts';
import { counted, when } from './printing.ts';
import { isContact } from '../rules/contacts.ts';

const IDS_SHOWN = 10; // conversation ids printed per identity; --json has them all

export const agentsCommands: Record<string, Command> = {
  agents: {
    usage: 'agents [--json]',
    options: { json: { type: 'boolean' } },
    summary:
      "the verified agents seen, by site, newest first: today's messages against their site's share, their " +
      'conversations and messages, and whether they are blocked or contacts (block --site, trust, block <id> --sender)',
    run: ({ values, store, config }) => agents(store, config, values.json === true),
  },
};

function agentJson(store: Store, row: AgentRow) {
  return {
    identity: row.identity,
    contact: isContact(store, row.identity),
    blocked: store.senderBlocks.isBlocked(`agent:${row.identity}`),
    conversations: row.conversation_ids.split(','),
    messages: row.messages,
    last_seen: row.last_seen,
  };
}

/** The agents by site, in the order of each site's newest message. */
function bySite(store: Store, share: number) {
  const day = utcDay(Date.now());
  const sites = new Map<string, ReturnType<typeof agentJson>[]>();
  for (const row of store.owner.agents()) {
    const site = siteOf(row.identity);
    sites.set(site, [...(sites.get(site) ?? []), agentJson(store, row)]);
  }
  return [...sites].map(([site, identities]) => ({
    site,
    contact: store.contacts.has(`site:${site}`),
    blocked: store.senderBlocks.isBlocked(`site:${site}`),
    messages_today: store.quotaCounts.count(day, `site:${site}`),
    share,
    agents: identities,
  }));
}

function agents(store: Store, config: Config, json: boolean): void {
  const sites = bySite(store, quotasIn(store, config).quotas.siteShare);
  if (json) return void console.log(JSON.stringify(sites, null, 2));
  if (sites.length === 0) return void console.log('No verified agent has written yet.');
  for (const site of sites) {
    const today = site.share === 0 ? `${site.messages_today} today` : `${site.messages_today} of ${site.share} today`;
    const marks = [site.blocked ? 'BLOCKED' : '', site.contact ? 'contact' : ''].filter(Boolean).join(', ');
    console.log(`site ${shown(site.site)}${marks ? ` (${marks})` : ''}: ${today} as a stranger`);
    for (const agent of site.agents) {
      const state = [agent.blocked ? 'BLOCKED' : '', agent.contact ? 'contact' : ''].filter(Boolean).join(', ');
      const ids = agent.conversations.slice(0, IDS_SHOWN).map((id) => id.slice(0, 8));
      const more = agent.conversations.length > IDS_SHOWN ? ', …' : '';
      const conversations = `${counted(agent.conversations.length, 'conversation')} (${ids.join(', ')}${more})`;
      console.log(
        `  ${shown(agent.identity)}${state ? ` (${state})` : ''}  ${conversations}, ` +
          `${counted(agent.messages, 'message')}, last ${when(agent.last_seen)}`,
      );
    }
  }
}
