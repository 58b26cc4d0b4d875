// The owner's command-line script: `npm run owner -- <command>`. It works on the same
// database as the running server (WAL and a busy timeout make that safe), and the
// server sees every change on its next request.

import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { backup, DatabaseSync } from 'node:sqlite';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openStore, type ConversationRow, type MessageRow, type Store } from './db.ts';
import { HttpError } from './errors.ts';
import { ListingsError, readListingsFile } from './listings.ts';
import { utcDay } from './time.ts';
import { parseReplyText } from './validate.ts';

/** A problem with the owner's input: printed as one line on stderr, exit 1. */
class OwnerError extends Error {}

interface Command {
  readonly usage: string;
  readonly summary: string;
  readonly options?: Record<string, { type: 'boolean' | 'string'; short?: string }>;
  run(args: { positionals: string[]; values: Record<string, unknown>; store: Store; config: Config }): Promise<void> | void;
}

const WATCH_INTERVAL_MS = 1000; // how often `watch` asks the database for new client messages

const COMMANDS: Record<string, Command> = {
  inbox: {
    usage: 'inbox [--all] [--json]',
    summary: 'conversations waiting for a reply first (longest waiting on top), then the rest; --all adds closed ones',
    options: { all: { type: 'boolean' }, json: { type: 'boolean' } },
    run: ({ values, store }) => inbox(store, values.all === true, values.json === true),
  },
  show: {
    usage: 'show <id> [--json]',
    summary: 'the whole history of one conversation (an unambiguous id prefix is enough)',
    options: { json: { type: 'boolean' } },
    run: ({ positionals, values, store }) => show(store, findConversation(store, positionals[0]), values.json === true),
  },
  reply: {
    usage: 'reply <id> <text…> | reply <id> -  [--force]',
    summary: 'answer as the owner; "-" reads the text from stdin; --force sends even at the daily maximum',
    options: { force: { type: 'boolean' } },
    run: ({ positionals, values, store, config }) => reply(store, config, positionals, values.force === true),
  },
  close: {
    usage: 'close <id>',
    summary: 'close a conversation: still readable by the client, follow-ups get 410',
    run: ({ positionals, store }) => setStatus(store, positionals[0], 'close'),
  },
  reopen: {
    usage: 'reopen <id>',
    summary: 'reopen a closed conversation',
    run: ({ positionals, store }) => setStatus(store, positionals[0], 'reopen'),
  },
  block: {
    usage: 'block <id>',
    summary: "refuse an abusive client: its credential gets 403 saying the owner blocked it",
    run: ({ positionals, store }) => setBlocked(store, positionals[0], true),
  },
  unblock: {
    usage: 'unblock <id>',
    summary: 'lift a block',
    run: ({ positionals, store }) => setBlocked(store, positionals[0], false),
  },
  export: {
    usage: 'export [<id>]',
    summary: 'conversations with their messages as JSON Lines on stdout (never a credential or its hash)',
    run: ({ positionals, store }) => exportConversations(store, positionals[0]),
  },
  watch: {
    usage: 'watch',
    summary: 'print each new client message as it arrives; Ctrl-C ends it',
    run: ({ store }) => watch(store),
  },
  listings: {
    usage: 'listings import <file> | listings export | listings remove <slug>',
    summary: 'manage the directory: import validates every listing, then upserts all or nothing',
    run: ({ positionals, store }) => listings(store, positionals),
  },
  stats: {
    usage: 'stats [--json]',
    summary: "today's message count against the daily maximum, conversations by status, database size",
    options: { json: { type: 'boolean' } },
    run: ({ values, store, config }) => stats(store, config, values.json === true),
  },
  backup: {
    usage: 'backup <file>',
    summary: 'an online, consistent copy of the database, safe while the server runs',
    run: ({ positionals, store, config }) => backupTo(store, config, positionals[0]),
  },
  'purge-expired': {
    usage: 'purge-expired',
    summary: 'delete conversations whose credential expired, with their messages and keys',
    run: ({ store }) => {
      const deleted = store.purgeExpired(new Date().toISOString());
      console.log(`Deleted ${deleted} expired conversation${deleted === 1 ? '' : 's'} with their messages and keys.`);
    },
  },
};

function help(): string {
  return [
    'Usage: npm run owner -- <command> [options]',
    '',
    'Works on the database at DB_PATH (default data/service.db), also while the server runs.',
    '',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`),
    '',
    'Run `npm run owner -- <command> --help` for one command.',
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return;
  }
  const command = COMMANDS[name];
  if (!command) throw new OwnerError(`unknown command "${name}"; run with --help to see the commands`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new OwnerError(`${(err as Error).message.split('. ')[0]}; usage: ${command.usage}`);
  }
  if (parsed.values.help) {
    console.log(`Usage: npm run owner -- ${command.usage}\n\n${command.summary}`);
    return;
  }
  const config = loadConfig();
  if (config.dbPath !== ':memory:' && !existsSync(config.dbPath)) {
    throw new OwnerError(`no database at ${config.dbPath}; start the server once, or set DB_PATH`);
  }
  const store = openStore(config.dbPath);
  try {
    await command.run({ positionals: parsed.positionals, values: parsed.values, store, config });
  } finally {
    store.close();
  }
}

function findConversation(store: Store, idOrPrefix: string | undefined): ConversationRow {
  if (!idOrPrefix) throw new OwnerError('give a conversation id (or its first characters)');
  const prefix = idOrPrefix.toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(prefix)) throw new OwnerError(`"${idOrPrefix}" is not a conversation id (4 to 36 characters of 0-9, a-f and -)`);
  const ids = store.conversationIdsByPrefix(prefix);
  if (ids.length === 0) throw new OwnerError(`no conversation has an id starting with ${prefix}`);
  if (ids.length > 1) throw new OwnerError(`more than one conversation starts with ${prefix}; give more characters`);
  return store.conversationById(ids[0] as string) as ConversationRow;
}

function agentLabel(metadata: string): string {
  const name = (JSON.parse(metadata) as { agent_name?: string }).agent_name;
  return name ? `${oneLine(name, 40)} (unverified)` : '(no name given)';
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function inbox(store: Store, all: boolean, json: boolean): void {
  const rows = store.inbox(all);
  if (json) {
    const items = rows.map((row) => ({
      id: row.id,
      status: row.status,
      blocked: row.blocked === 1,
      waiting_for_reply: row.status === 'open',
      message_count: row.last_seq,
      last_message_at: row.last_message_at,
      last_author: row.last_author,
      agent_name: (JSON.parse(row.metadata) as { agent_name?: string }).agent_name ?? null,
      agent_name_verified: false,
      preview: oneLine(row.last_message, 80),
    }));
    console.log(JSON.stringify(items, null, 2));
    return;
  }
  if (rows.length === 0) {
    console.log(all ? 'No conversations yet.' : 'No open or answered conversations. (--all shows closed ones.)');
    return;
  }
  for (const row of rows) {
    const mark = row.status === 'open' ? 'WAITING ' : '        ';
    const status = `${row.status}${row.blocked ? ', blocked' : ''}`;
    console.log(
      `${mark}${row.id}  ${status.padEnd(17)} ${String(row.last_seq).padStart(3)} msgs  last ${when(row.last_message_at)}  ` +
        `${agentLabel(row.metadata)}  ${row.last_author}: "${oneLine(row.last_message, 60)}"`,
    );
  }
}

function conversationJson(conversation: ConversationRow, messages: MessageRow[]) {
  return {
    id: conversation.id,
    status: conversation.status,
    blocked: conversation.blocked === 1,
    created_at: conversation.created_at,
    expires_at: conversation.expires_at,
    metadata: JSON.parse(conversation.metadata),
    metadata_verified: false,
    messages,
  };
}

function show(store: Store, conversation: ConversationRow, json: boolean): void {
  const messages = store.allMessages(conversation.id);
  if (json) {
    console.log(JSON.stringify(conversationJson(conversation, messages), null, 2));
    return;
  }
  const metadata = JSON.parse(conversation.metadata) as Record<string, string>;
  console.log(`Conversation ${conversation.id}`);
  console.log(`  status      ${conversation.status}${conversation.blocked ? ' (blocked)' : ''}`);
  console.log(`  opened      ${when(conversation.created_at)}, credential expires ${when(conversation.expires_at)}`);
  for (const [key, value] of Object.entries(metadata)) console.log(`  ${key.padEnd(11)} ${value} (unverified)`);
  for (const message of messages) {
    console.log(`\n#${message.seq}  ${message.author === 'owner' ? 'you (owner)' : 'client'}  ${when(message.created_at)}`);
    console.log(message.message.replace(/^/gm, '    '));
  }
}

async function reply(store: Store, config: Config, positionals: string[], force: boolean): Promise<void> {
  const [id, ...words] = positionals;
  const conversation = findConversation(store, id);
  if (words.length === 0) throw new OwnerError('give the reply text, or - to read it from stdin');
  const raw = words.length === 1 && words[0] === '-' ? await readStdin() : words.join(' ');
  let text: string;
  try {
    text = parseReplyText(raw.replace(/\n$/, '')); // an editor's final newline is not part of the reply
  } catch (err) {
    throw new OwnerError(`the reply was not sent: ${(err as HttpError).message.replace(/`/g, '')}`);
  }
  const now = new Date();
  const result = store.appendMessage({
    conversationId: conversation.id,
    author: 'owner',
    message: text,
    idempotencyKey: null,
    createdAt: now.toISOString(),
    day: utcDay(now.getTime()),
    dailyLimit: force ? null : config.dailyMessageLimit,
  });
  if (!result.ok && result.reason === 'closed') {
    throw new OwnerError(`conversation ${conversation.id} is closed; reopen it first`);
  }
  if (!result.ok) {
    throw new OwnerError(`today's shared maximum of ${config.dailyMessageLimit} messages is reached; add --force to send anyway`);
  }
  console.log(`Replied to ${conversation.id} as seq ${result.value.seq}.`);
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

function setStatus(store: Store, id: string | undefined, action: 'close' | 'reopen'): void {
  const conversation = findConversation(store, id);
  if (action === 'close') {
    if (conversation.status === 'closed') throw new OwnerError(`conversation ${conversation.id} is already closed`);
    store.setStatus(conversation.id, 'closed');
    console.log(`Closed ${conversation.id}.`);
    return;
  }
  if (conversation.status !== 'closed') throw new OwnerError(`conversation ${conversation.id} is not closed`);
  // Reopened, its status again says who spoke last.
  const last = store.messagesAfter(conversation.id, conversation.last_seq - 1, 1)[0];
  store.setStatus(conversation.id, last?.author === 'owner' ? 'answered' : 'open');
  console.log(`Reopened ${conversation.id}.`);
}

function setBlocked(store: Store, id: string | undefined, blocked: boolean): void {
  const conversation = findConversation(store, id);
  store.setBlocked(conversation.id, blocked);
  console.log(`${blocked ? 'Blocked' : 'Unblocked'} ${conversation.id}.`);
}

function exportConversations(store: Store, id: string | undefined): void {
  const conversations = id === undefined ? store.allConversations() : [findConversation(store, id)];
  for (const conversation of conversations) {
    process.stdout.write(`${JSON.stringify(conversationJson(conversation, store.allMessages(conversation.id)))}\n`);
  }
}

function watch(store: Store): Promise<void> {
  console.log('Watching for new client messages; Ctrl-C ends.');
  // Asks for messages stamped at or after the newest one printed, and skips those already
  // printed: a message stamped in the same millisecond may commit a moment later.
  let since = new Date().toISOString();
  let printedAtSince = new Set<string>();
  let version = -1;
  return new Promise((resolve) => {
    const tick = () => {
      const current = store.dataVersion();
      if (current === version) return;
      version = current;
      for (const message of store.clientMessagesSince(since)) {
        const key = `${message.conversation_id}/${message.seq}`;
        if (message.created_at === since && printedAtSince.has(key)) continue;
        if (message.created_at !== since) printedAtSince = new Set();
        since = message.created_at;
        printedAtSince.add(key);
        console.log(`\n${when(message.created_at)}  ${message.conversation_id}  #${message.seq}  ${agentLabel(message.metadata)}`);
        console.log(message.message.replace(/^/gm, '    '));
      }
    };
    const timer = setInterval(tick, WATCH_INTERVAL_MS);
    const stop = () => {
      clearInterval(timer);
      console.log('Stopped watching.');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

function listings(store: Store, positionals: string[]): void {
  const [action, argument] = positionals;
  if (action === 'export' && argument === undefined) {
    console.log(JSON.stringify(store.listingTexts().map((text) => JSON.parse(text)), null, 2));
    return;
  }
  if (action === 'remove' && argument !== undefined) {
    if (!store.removeListing(argument)) throw new OwnerError(`no listing has the slug "${argument}"`);
    console.log(`Removed ${argument}.`);
    return;
  }
  if (action === 'import' && argument !== undefined) {
    const incoming = readListingsFile(argument);
    const existing = new Set(store.listingTexts().map((text) => (JSON.parse(text) as { slug: string }).slug));
    store.upsertListings(incoming);
    const added = incoming.filter((listing) => !existing.has(listing.slug as string)).length;
    console.log(`Imported ${incoming.length} listings: ${added} new, ${incoming.length - added} updated.`);
    return;
  }
  throw new OwnerError('usage: listings import <file> | listings export | listings remove <slug>');
}

function databaseBytes(config: Config): number {
  return ['', '-wal'].reduce((sum, suffix) => {
    const file = config.dbPath + suffix;
    return sum + (existsSync(file) ? statSync(file).size : 0);
  }, 0);
}

function stats(store: Store, config: Config, json: boolean): void {
  const today = utcDay(Date.now());
  const counts = store.stats();
  const result = {
    day: today,
    messages_today: store.dailyCount(today),
    daily_maximum: config.dailyMessageLimit,
    conversations: counts.byStatus,
    blocked: counts.blocked,
    messages: counts.messages,
    database_bytes: databaseBytes(config),
  };
  if (json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const maximum = config.dailyMessageLimit === 0 ? 'no maximum' : `of ${config.dailyMessageLimit}`;
  console.log(`Today (${today} UTC): ${result.messages_today} messages ${maximum}`);
  console.log(`Conversations: ${counts.byStatus.open} open, ${counts.byStatus.answered} answered, ${counts.byStatus.closed} closed; ${counts.blocked} blocked`);
  console.log(`Messages stored: ${counts.messages}`);
  console.log(`Database size: ${(result.database_bytes / 1024).toFixed(1)} KiB (${config.dbPath} with its WAL)`);
}

async function backupTo(store: Store, config: Config, file: string | undefined): Promise<void> {
  if (!file) throw new OwnerError('give the file to write the backup to');
  if (existsSync(file)) throw new OwnerError(`${file} already exists; choose a new file name`);
  // Written beside the target and renamed only once complete and checked: never half a backup.
  const partial = `${file}.partial-${process.pid}`;
  const cleanUp = () => ['', '-wal', '-shm', '-journal'].forEach((suffix) => rmSync(partial + suffix, { force: true }));
  try {
    await backup(store.db, partial);
    const copy = new DatabaseSync(partial);
    try {
      copy.exec('PRAGMA journal_mode = DELETE'); // one self-contained file, no -wal beside it
      const check = copy.prepare('PRAGMA integrity_check').get() as { integrity_check: string };
      if (check.integrity_check !== 'ok') throw new OwnerError(`the copy failed its integrity check: ${check.integrity_check}`);
    } finally {
      copy.close();
    }
    renameSync(partial, file);
  } catch (err) {
    cleanUp();
    if (err instanceof OwnerError) throw err;
    throw new OwnerError(`cannot write the backup to ${file}: ${(err as Error).message}`);
  }
  const counts = store.stats();
  console.log(`Backed up ${config.dbPath} to ${file}: ${counts.messages} messages, checked.`);
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof OwnerError || err instanceof ConfigError) {
    console.error(`error: ${err.message}`);
  } else if (err instanceof ListingsError && err.problems.length === 1) {
    console.error(`error: nothing was imported: ${err.problems[0]}`);
  } else if (err instanceof ListingsError) {
    console.error(`error: nothing was imported; ${err.problems.length} problems:`);
    for (const problem of err.problems) console.error(`  ${problem}`);
  } else {
    console.error(`error: ${(err as Error).message}`);
  }
  process.exitCode = 1;
}
