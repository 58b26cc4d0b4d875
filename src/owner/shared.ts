// What the owner's commands share: their shape, finding a conversation by an id prefix, and
// how times and names are printed.

import path from 'node:path';
import type { Config } from '../base/config.ts';
import { quotasOf, type Quotas } from '../rules/quotas.ts';
import { refuse } from '../refusals/refusal.ts';
import type { Conversation, Message, Store } from '../store/store.ts';
import { siteOf } from '../base/sites.ts';
import { storedMetadata, storedObject } from '../base/stored-json.ts';
import { senderLabel, shown } from '../base/terminal.ts';

/** How the owner runs the script, as every usage line and the README show it; -s keeps npm's lines off its output. */
export const RUN_OWNER = 'npm run -s owner --';

/** A file the owner names, from where the command was typed: npm runs the script from the project folder. */
export function ownerFile(name: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), name);
}

/** A problem with the owner's input: printed as one line on stderr, exit 1. */
export class OwnerError extends Error {}

export interface Command {
  readonly usage: string;
  readonly summary: string;
  readonly options?: Record<string, { type: 'boolean' | 'string'; short?: string }>;
  /** Words after the id are text as typed, even `-5` or `-h`: only its boolean options, spelled whole, are options. */
  readonly textAfterId?: true;
  run(args: {
    positionals: string[];
    values: Record<string, unknown>;
    store: Store;
    config: Config;
  }): Promise<void> | void;
}

/** A command that works on the database file itself and must not open (and so migrate) it first: restore. */
export interface FileCommand {
  readonly usage: string;
  readonly summary: string;
  readonly options?: undefined;
  readonly onFile: true;
  run(args: { positionals: string[]; config: Config }): Promise<void>;
}

/** The one conversation whose id starts with `idOrPrefix` (at least 4 characters). */
export function findConversation(store: Store, idOrPrefix: string | undefined): Conversation {
  if (!idOrPrefix) throw new OwnerError('give a conversation id (or its first characters)');
  const prefix = idOrPrefix.toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(prefix))
    throw new OwnerError(`"${idOrPrefix}" is not a conversation id (4 to 36 characters of 0-9, a-f and -)`);
  const ids = store.owner.conversationIdsByPrefix(prefix);
  if (ids.length === 0) throw refuse('no_such_conversation', prefix);
  if (ids.length > 1) throw refuse('ambiguous_id', prefix);
  return store.conversationById(ids[0] as string) as Conversation;
}

/**
 * The quotas the server enforces, as it recorded them when it started; before its first start, the
 * owner's own, which also fill in a quota an older release did not record (until the server starts).
 */
export function quotasIn(store: Store, config: Config): { quotas: Quotas; recorded: boolean } {
  const recorded = store.setting('quotas');
  if (recorded === undefined) return { quotas: quotasOf(config), recorded: false };
  const stored = storedObject(recorded) as Partial<Quotas> | undefined; // damaged: the owner's own, as before a start
  return { quotas: { ...quotasOf(config), ...stored }, recorded: stored !== undefined };
}

/** The self-declared name; null when none was given, or the stored metadata is damaged. */
export function agentName(metadata: string): string | null {
  return storedMetadata(metadata)?.agent_name ?? null;
}

/** Whether a verified identity is one of the owner's contacts, by itself or by its site. */
export function isContact(store: Store, identity: string | null): boolean {
  return identity !== null && store.contacts.isContact(identity, siteOf(identity));
}

/** Who wrote, for the terminal: the declared name and `verified: <identity>`, `contact: …` or `(unverified)`. */
export function agentLabel(store: Store, metadata: string, verifiedAgent: string | null): string {
  return senderLabel(agentName(metadata), verifiedAgent, isContact(store, verifiedAgent));
}

/** `2 (Wednesday) for question #3`: the choice an owner message made, its text shown as agents' text is. */
export function chosenWords(message: Message): string {
  const number = (message.choice_index ?? 0) + 1;
  return `${number} (${shown(message.choice_text ?? '')}) for question #${message.choice_for_seq}`;
}

/** For JSON: the exact characters, whitespace folded and cut. The terminal uses shownShort instead. */
export function oneLine(text: string, max: number): string {
  const flat = [...text.replace(/\s+/g, ' ').trim()]; // code points: no character is cut in half
  return flat.length > max ? `${flat.slice(0, max - 1).join('')}…` : flat.join('');
}

/** A catalogue sentence in the script's style: "error: conversation … is closed; reopen it first". */
export function asClause(sentence: string): string {
  return sentence.charAt(0).toLowerCase() + sentence.slice(1).replace(/`/g, '').replace(/\.$/, '');
}

/** A count with its noun: `1 message`, `2 messages`. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** Everything on standard input, as text: a reply or a listings file given as "-". */
export function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}
