// The owner's command-line script: a dispatcher over the commands in src/owner/. It works on
// the same database as the running server (WAL and a busy timeout make that safe), and every
// change goes through the rules in conversations.ts; the server sees it on its next request.

import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from './base/config.ts';
import { ListingsError } from './directory/listings.ts';
import { agentsCommands } from './owner/agents.ts';
import { conversationCommands } from './owner/conversations.ts';
import { maintenanceCommands } from './owner/maintenance.ts';
import { restoreCommands } from './owner/restore.ts';
import { senderCommands } from './owner/senders.ts';
import { showCommands } from './owner/show.ts';
import { statsCommands } from './owner/stats.ts';
import { asClause, OwnerError, RUN_OWNER, type Command, type FileCommand } from './owner/command.ts';
import { Refusal } from './refusals/refusal.ts';
import { Store } from './store/store.ts';
import { shown } from './base/terminal.ts';

const COMMANDS: Record<string, Command | FileCommand> = {
  ...conversationCommands,
  ...senderCommands,
  ...showCommands,
  ...agentsCommands,
  ...maintenanceCommands,
  ...statsCommands,
  ...restoreCommands,
};

function help(): string {
  return [
    `Usage: ${RUN_OWNER} <command> [options]`,
    '',
    'Works on the database at DB_PATH (default data/service.db), also while the server runs.',
    '',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`),
    '',
    `Run \`${RUN_OWNER} <command> --help\` for one command.`,
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') return void console.log(help());
  const command = COMMANDS[name];
  if (!command) throw new OwnerError(`unknown command "${name}"; run with --help to see the commands`);
  const parsed = 'textAfterId' in command && command.textAfterId ? textArgs(command, rest) : optionArgs(command, rest);
  if (parsed.values.help) return void console.log(`Usage: ${RUN_OWNER} ${command.usage}\n\n${command.summary}`);
  if (parsed.positionals.length > mostArguments(command.usage)) {
    throw new OwnerError(`too many arguments; usage: ${command.usage}`);
  }
  const config = loadConfig();
  if ('onFile' in command) return command.run({ positionals: parsed.positionals, config });
  if (config.dbPath !== ':memory:' && !existsSync(config.dbPath)) {
    throw new OwnerError(`no database at ${config.dbPath}; start the server once, or set DB_PATH`);
  }
  const store = new Store(config.dbPath);
  try {
    await command.run({ positionals: parsed.positionals, values: parsed.values, store, config });
  } finally {
    store.close();
  }
}

function optionArgs(command: Command | FileCommand, args: string[]) {
  try {
    const options = { ...command.options, help: { type: 'boolean', short: 'h' } } as const;
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    // parseArgs quotes what was typed with JSON escapes and adds advice; the first sentence is enough
    const said = (err as Error).message.split(/\.\s/)[0] as string;
    throw new OwnerError(`${said}; usage: ${command.usage}`);
  }
}

/**
 * reply's arguments: `--help` first asks for help; a boolean option's whole name anywhere is it; an option
 * with a value (`--choose N`, `--choose=N`) is one only right after the id, where no text has begun, so
 * a reply whose words include `--choose` later is sent as typed; every other word is text.
 */
function textArgs(command: Command, args: string[]) {
  if (args[0] === '--help' || args[0] === '-h') return { values: { help: true }, positionals: [] };
  const options = Object.entries(command.options ?? {});
  const flags = options.filter(([, option]) => option.type === 'boolean').map(([name]) => `--${name}`);
  const words = args.filter((word) => !flags.includes(word));
  const values: Record<string, unknown> = Object.fromEntries(flags.map((flag) => [flag.slice(2), args.includes(flag)]));
  for (const [name] of options.filter(([, option]) => option.type === 'string')) {
    const [word, next] = [words[1], words[2]];
    if (word?.startsWith(`--${name}=`)) values[name] = words.splice(1, 1)[0]?.slice(name.length + 3);
    else if (word !== `--${name}`) continue;
    else if (next === undefined) throw new OwnerError(`--${name} needs a value; usage: ${command.usage}`);
    else values[name] = words.splice(1, 2)[1];
  }
  if (words[1] === '--') words.splice(1, 1); // the usual end of options, after the id, is still understood
  return { values, positionals: words };
}

/** The arguments a usage names: one per <…> that is no option's value, any number where it says … (text, slugs). */
function mostArguments(usage: string): number {
  if (usage.includes('…')) return Infinity;
  const positionals = (form: string) => (form.replace(/--\S+ <[^>]+>/g, '').match(/<[^>]+>/g) ?? []).length;
  return Math.max(...usage.split(' | ').map(positionals));
}

/** One line on stderr per mistake (a list for a listings file), exit 1, nothing half-written. */
function report(err: unknown): void {
  // A listings file, an id typed by the owner or a refusal may carry any characters: shown, never obeyed.
  const problems = (err instanceof ListingsError ? err.problems : []).map(shown);
  if (problems.length > 1) {
    const list = problems.map((problem) => `  ${problem}`).join('\n');
    console.error(`error: nothing was imported; ${problems.length} problems:\n${list}`);
  } else if (problems.length === 1) console.error(`error: nothing was imported: ${problems[0]}`);
  else console.error(`error: ${shown(err instanceof Refusal ? asClause(err.message) : (err as Error).message)}`);
  process.exitCode = 1;
}

// A reader that goes away (`export | head`) ends the command quietly, as it does any Unix tool.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') console.error(`error: cannot write the output: ${shown(err.message)}`);
  process.exit(err.code === 'EPIPE' ? 0 : 1);
});

try {
  await main(process.argv.slice(2));
} catch (err) {
  report(err);
}
