// What every owner command is: its shape, its error, the file it may name, reading stdin, the
// catalogue's sentences in the script's style, finding a conversation by an id prefix, and the quotas
// in force.

import path from 'node:path';
import type { Config } from '../base/config.ts';
import { storedObject } from '../base/stored-json.ts';
import { refuse } from '../refusals/refusal.ts';
import { quotasOf, type Quotas } from '../rules/quotas.ts';
import type { Conversation, Store } from '../store/store.ts';

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

/** A catalogue sentence in the script's style: "error: conversation … is closed; reopen it first". */
export function asClause(sentence: string): string {
  return sentence.charAt(0).toLowerCase() + sentence.slice(1).replace(/`/g, '').replace(/\.$/, '');
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
