// The owner's `stats`: how much of the day each limit has used (the maximum, the reserve, each
// share's busiest sender, the two pools), the conversations by status, the database's size.

import { existsSync, statSync } from 'node:fs';
import type { Config } from '../base/config.ts';
import { usageOf } from '../rules/quotas.ts';
import type { Store } from '../store/store.ts';
import { shown } from '../base/terminal.ts';
import { quotasIn, type Command } from './command.ts';

function databaseBytes(config: Config): number {
  return ['', '-wal'].reduce(
    (sum, suffix) => sum + (existsSync(config.dbPath + suffix) ? statSync(config.dbPath + suffix).size : 0),
    0,
  );
}

export const statsCommands: Record<string, Command> = {
  stats: {
    usage: 'stats [--json]',
    options: { json: { type: 'boolean' } },
    summary:
      "today's message count against the daily maximum and each share's busiest sender, conversations by status, " +
      'database size',
    run: ({ values, store, config }) => stats(store, config, values.json === true),
  },
};

function stats(store: Store, config: Config, json: boolean): void {
  const result = statsResult(store, config);
  if (json) return void console.log(JSON.stringify(result, null, 2));
  printStats(result, config);
}

/** Today's count against the maximum, each share's busiest sender, the conversations, the database's size. */
function statsResult(store: Store, config: Config) {
  const { quotas, recorded } = quotasIn(store, config);
  const usage = usageOf(store, Date.now());
  const { blocked, ...byStatus } = store.conversationCounts();
  const source = recorded
    ? 'the limits the server recorded when it started'
    : 'the limits set here: the server has not started on this database yet';
  return {
    day: usage.day,
    messages_today: usage.messages,
    daily_maximum: quotas.dailyMaximum,
    daily_maximum_source: source,
    owner_replies_today: usage.ownerReplies,
    owner_reserve: quotas.ownerReserve,
    busiest_conversation_today: { ...usage.busiestConversation, share: quotas.conversationShare },
    busiest_address_today: { ...usage.busiestAddress, share: quotas.addressShare },
    busiest_site_today: { ...usage.busiestSite, share: quotas.siteShare },
    verified_strangers_today: { count: usage.verified, pool: quotas.verifiedPool },
    unverified_today: { count: usage.unverified, pool: quotas.unverifiedPool },
    conversations: byStatus,
    blocked,
    messages: store.messageCount(),
    database_bytes: databaseBytes(config),
  };
}

function printStats(result: ReturnType<typeof statsResult>, config: Config): void {
  const { daily_maximum: maximum, owner_reserve: reserve } = result;
  const of = (share: number) => (share === 0 ? 'no share' : `of its share of ${share}`);
  const outOf = maximum === 0 ? 'no maximum' : `of ${maximum}`;
  console.log(`Today (${result.day} UTC): ${result.messages_today} messages ${outOf} (${result.daily_maximum_source})`);
  if (maximum > 0) {
    const conversation = result.busiest_conversation_today;
    const address = result.busiest_address_today;
    const which = conversation.id === null ? '' : ` (${conversation.id})`;
    console.log(`  your replies: ${result.owner_replies_today}; ${reserve} of the maximum are kept for them`);
    console.log(`  busiest conversation: ${conversation.count} ${of(conversation.share)}${which}`);
    console.log(`  busiest address: ${address.count} ${of(address.share)}`);
    const site = result.busiest_site_today;
    const pool = (p: { count: number; pool: number }) =>
      `${p.count} ${p.pool === 0 ? 'no pool' : `of their pool of ${p.pool}`}`;
    console.log(`  busiest site: ${site.count} ${of(site.share)}${site.site === null ? '' : ` (${shown(site.site)})`}`);
    console.log(`  verified agents you do not know, together: ${pool(result.verified_strangers_today)}`);
    console.log(`  unverified senders together: ${pool(result.unverified_today)}`);
  }
  const { open, answered, closed } = result.conversations;
  console.log(`Conversations: ${open} open, ${answered} answered, ${closed} closed; ${result.blocked} blocked`);
  console.log(`Messages stored: ${result.messages}`);
  console.log(`Database size: ${(result.database_bytes / 1024).toFixed(1)} KiB (${config.dbPath} with its WAL)`);
}
