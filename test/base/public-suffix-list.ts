// The Public Suffix List the service ships (data/public-suffix-list.dat), written from the copy that the
// npm package tldts carries: a registry package updated with the list, where Debian's copy is years old.
// tldts keeps the list as a compact trie; this walks it back into the list's own format, ICANN rules
// and private ones in their sections, exception rules with their `!`. Run it after updating tldts:
//
//   npx node test/base/public-suffix-list.ts <the day npm shows for that tldts release> \
//     > data/public-suffix-list.dat
//
// test/base/sites.test.ts fails while the shipped file differs from what the installed tldts gives.

import { readFileSync } from 'node:fs';
import path from 'node:path';

const ICANN = 1;
const PRIVATE = 2;
const TLDTS = path.resolve(import.meta.dirname, '../../node_modules/tldts/package.json');
const TRIE: string = 'tldts/dist/es6/src/data/trie.js'; // the package's list, as a module without types

interface Trie {
  readonly nodeFlags: ArrayLike<number>;
  readonly edgeStart: ArrayLike<number>;
  readonly edgeLength: ArrayLike<number>;
  readonly edgeChild: ArrayLike<number>;
  readonly labelText: string;
  readonly rulesRoot: number;
  readonly exceptionsRoot: number;
}

/** Every rule under `root`, right to left as the trie stores them, with its section. */
function rulesUnder(t: Trie, root: number): { rule: string; section: number }[] {
  const offsets: number[] = [];
  let offset = 0;
  for (let edge = 0; edge < t.edgeLength.length; edge++) {
    offsets.push(offset);
    offset += t.edgeLength[edge] as number;
  }
  const found: { rule: string; section: number }[] = [];
  const walk = (node: number, labels: string[]) => {
    for (let edge = t.edgeStart[node] as number; edge < (t.edgeStart[node + 1] as number); edge++) {
      const start = offsets[edge] as number;
      const label = t.labelText.slice(start, start + (t.edgeLength[edge] as number));
      const child = t.edgeChild[edge] as number;
      const next = [label, ...labels];
      if (t.nodeFlags[child] !== 0) found.push({ rule: next.join('.'), section: t.nodeFlags[child] as number });
      walk(child, next);
    }
  };
  walk(root, []);
  return found;
}

/** The list as data/public-suffix-list.dat holds it, dated by the tldts release it comes from. */
export async function publicSuffixListText(published: string): Promise<string> {
  const t = (await import(TRIE)) as Trie;
  const version = (JSON.parse(readFileSync(TLDTS, 'utf8')) as { version: string }).version;
  const rules = rulesUnder(t, t.rulesRoot);
  const exceptions = rulesUnder(t, t.exceptionsRoot).map(({ rule, section }) => ({ rule: `!${rule}`, section }));
  const section = (which: number) =>
    [...rules, ...exceptions]
      .filter((entry) => entry.section === which)
      .map((entry) => entry.rule)
      .sort();
  return [
    '// The Public Suffix List (https://publicsuffix.org/list/), Mozilla Public License 2.0.',
    `// Date: ${published}`,
    `// Source: the copy carried by the npm package tldts ${version}, published ${published},`,
    "// written out by test/base/public-suffix-list.ts. Rules are sorted; the list's comments are not kept.",
    '',
    '// ===BEGIN ICANN DOMAINS===',
    ...section(ICANN),
    '// ===END ICANN DOMAINS===',
    '// ===BEGIN PRIVATE DOMAINS===',
    ...section(PRIVATE),
    '// ===END PRIVATE DOMAINS===',
    '',
  ].join('\n');
}

if (import.meta.main) {
  const published = process.argv[2];
  if (published === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(published)) {
    console.error('usage: npx node test/base/public-suffix-list.ts <the tldts release date, YYYY-MM-DD>');
    process.exit(2);
  }
  process.stdout.write(await publicSuffixListText(published));
}
