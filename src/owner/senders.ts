// The owner's commands on who writes: `block` and `unblock` (a conversation alone, its sender, or a
// whole site), `trust` and `untrust` (the agents the owner knows). A sender or site block blocks every
// conversation it opened and gives their day back, so one command undoes a flood; its output names
// the conversations it changed, by the first 8 characters of their ids, as `inbox` lets them be typed.

import { shown } from '../base/terminal.ts';
import { blockSender, blockSite, setBlocked, unblockSender, unblockSite, type SenderBlock } from '../rules/blocks.ts';
import { contactOf, trust, untrust } from '../rules/contacts.ts';
import { siteNamed } from '../rules/site-names.ts';
import type { Store } from '../store/store.ts';
import { findConversation, OwnerError, type Command } from './command.ts';
import { counted } from './printing.ts';

const BY_SITE = { site: { type: 'string' as const } };

export const senderCommands: Record<string, Command> = {
  block: {
    usage: 'block <id> [--sender] | block --site <site>',
    options: { sender: { type: 'boolean' }, ...BY_SITE },
    summary:
      "refuse an abusive client: its credential gets 403, and today's messages of the conversation no longer count " +
      'against the day; --sender also refuses its sender (the verified agent, or else the address) every opening ' +
      'and follow-up, and blocks every conversation it opened; --site does so for every verified agent of a site',
    run: ({ positionals, values, store }) => block(store, positionals[0], values, true),
  },
  unblock: {
    usage: 'unblock <id> [--sender] | unblock --site <site>',
    options: { sender: { type: 'boolean' }, ...BY_SITE },
    summary:
      "lift a block (with --sender or --site, and the conversations blocked with it); today's messages count again",
    run: ({ positionals, values, store }) => block(store, positionals[0], values, false),
  },
  trust: {
    usage: 'trust <id> | trust --site <site>',
    options: BY_SITE,
    summary:
      'make the verified agent that opened a conversation (or every verified agent of a site) a contact: its ' +
      "messages count against no pool and no site's share, so no flood of strangers takes its room",
    run: ({ positionals, values, store }) => contact(store, positionals[0], values.site, true),
  },
  untrust: {
    usage: 'untrust <id> | untrust --site <site>',
    options: BY_SITE,
    summary: 'end a contact made with trust',
    run: ({ positionals, values, store }) => contact(store, positionals[0], values.site, false),
  },
};

/** The one thing a command names: a conversation (by an id prefix) or a site; never both, never neither. */
function oneTarget(idOrPrefix: string | undefined, site: unknown, usage: string): { id?: string; site?: string } {
  if (typeof site === 'string' && idOrPrefix !== undefined)
    throw new OwnerError(`give an id or --site, not both; usage: ${usage}`);
  if (typeof site === 'string') return { site: siteNamed(site) };
  if (idOrPrefix === undefined) throw new OwnerError(`give a conversation id or --site <site>; usage: ${usage}`);
  return { id: idOrPrefix };
}

function block(store: Store, idOrPrefix: string | undefined, values: Record<string, unknown>, blocking: boolean): void {
  const usage = blocking ? senderCommands.block!.usage : senderCommands.unblock!.usage;
  const target = oneTarget(idOrPrefix, values.site, usage);
  if (target.site !== undefined) {
    const done = blocking ? blockSite(store, target.site) : unblockSite(store, target.site);
    return void console.log(siteSentence(target.site, done, blocking));
  }
  const { id } = findConversation(store, target.id);
  if (values.sender !== true) {
    setBlocked(store, id, blocking);
    return void console.log(`${blocking ? 'Blocked' : 'Unblocked'} ${id}.`);
  }
  const done = blocking ? blockSender(store, id) : unblockSender(store, id);
  console.log(senderSentence(id, done, blocking));
}

/** What a sender block did, in words: whom it names, and the conversations blocked or unblocked with it. */
function senderSentence(id: string, done: SenderBlock, blocking: boolean): string {
  const agent = done.sender.startsWith('agent:') ? done.sender.slice('agent:'.length) : null;
  const who = agent === null ? 'its address (by its keyed hash)' : `the verified agent ${shown(agent)}`;
  const others = done.conversations.filter((other) => other !== id);
  if (!blocking) return `Unblocked the sender of ${id}, ${who}${withIt(done.conversations, 'unblocked')}.`;
  if (!done.changed) return `The sender of ${id}, ${who}, is already blocked${withIt(done.conversations, 'blocked')}.`;
  const shared = agent === null && others.length > 0 ? ' (an address may be shared: a NAT, a cloud host)' : '';
  const also = others.length === 0 ? '' : `; this also refuses ${list(others)}${shared}`;
  return `Blocked ${id} and its sender, ${who}${also}.`;
}

function siteSentence(site: string, done: SenderBlock, blocking: boolean): string {
  if (!blocking) return `Unblocked the site ${site}${withIt(done.conversations, 'unblocked')}.`;
  if (!done.changed) return `The site ${site} is already blocked${withIt(done.conversations, 'blocked')}.`;
  return `Blocked the site ${site}, every verified agent of it${withIt(done.conversations, 'blocked')}.`;
}

function withIt(ids: readonly string[], done: string): string {
  return ids.length === 0 ? '' : `; ${done} with it: ${list(ids)}`;
}

/** `2 conversations: 4e55bee0, 91c2d7aa`: ids as typed, their first 8 characters. */
function list(ids: readonly string[]): string {
  return `${counted(ids.length, 'conversation')}: ${ids.map((id) => id.slice(0, 8)).join(', ')}`;
}

function contact(store: Store, idOrPrefix: string | undefined, site: unknown, trusting: boolean): void {
  const usage = trusting ? senderCommands.trust!.usage : senderCommands.untrust!.usage;
  const target = oneTarget(idOrPrefix, site, usage);
  const key =
    target.site !== undefined
      ? (`site:${target.site}` as const)
      : contactOf(store, findConversation(store, target.id).id);
  const named = target.site !== undefined ? `the site ${target.site}` : shown(key.slice('agent:'.length));
  if (!trusting) {
    untrust(store, key);
    return void console.log(`${named} is no longer a contact.`);
  }
  if (!trust(store, key)) return void console.log(`${named} is already a contact.`);
  const what = target.site !== undefined ? 'every verified agent of it is a contact' : 'a contact';
  console.log(`Trusted ${named}: ${what} now; its messages count against no pool and no site's share.`);
}
