// The layers of src/ as docs/design.md's map states them: every import goes to the folder's own
// files or to a folder its row names, no import circle exists (type-only imports included), and
// every path the documentation names exists. The map cannot go stale without this failing. And
// every file keeps the house sizes: under 300 lines, lines of at most 120 characters.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers.ts';

const SRC = path.join(ROOT, 'src');
const DESIGN = readFileSync(path.join(ROOT, 'docs/design.md'), 'utf8');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

// Static imports, type-only ones, re-exports and import('…'): every relative specifier.
const SPECIFIER = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Each file of src/ with the files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const text = readFileSync(file, 'utf8');
    graph.set(file, [...text.matchAll(SPECIFIER)].map((match) => path.resolve(path.dirname(file), match[1] as string)));
  }
  return graph;
}

/** The map's rows: the folder (or entry point files) of each, and the folders it may import. */
function layerMap(): Map<string, Set<string>> {
  const section = DESIGN.slice(DESIGN.indexOf('## Where things live'));
  const rows = section.split('\n').filter((line) => line.startsWith('| [`src/'));
  assert.ok(rows.length > 10, 'docs/design.md has its map of src/');
  const map = new Map<string, Set<string>>();
  for (const row of rows) {
    const [placeCell = '', , allowedCell = ''] = row.split('|').slice(1).map((cell) => cell.trim());
    const allowed = new Set(allowedCell === 'nothing' ? [] : allowedCell.split(',').map((name) => name.trim()));
    for (const [, place] of placeCell.matchAll(/\[`src\/([^`]*)`\]/g)) {
      map.set((place as string).replace(/\/$/, ''), allowed);
    }
  }
  return map;
}

/** A file's place in the map: its folder under src/, or the file itself for an entry point at the top. */
function placeOf(file: string): string {
  const relative = path.relative(SRC, file);
  return path.dirname(relative) === '.' ? relative : path.dirname(relative);
}

test('every import of src/ goes down the layers that docs/design.md names', () => {
  const map = layerMap();
  const broken: string[] = [];
  for (const [file, imports] of importGraph()) {
    const place = placeOf(file);
    const allowed = map.get(place);
    if (allowed === undefined) {
      broken.push(`${path.relative(SRC, file)}: its place ${place} has no row in the map`);
      continue;
    }
    for (const target of imports) {
      const targetPlace = placeOf(target);
      if (targetPlace === place || path.dirname(path.relative(SRC, target)) === place) continue;
      if (!allowed.has(targetPlace)) {
        const [from, to] = [path.relative(SRC, file), path.relative(SRC, target)];
        broken.push(`${from} imports ${to}, but ${place} may not import ${targetPlace}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('no import circle runs through src/, type-only imports included', () => {
  const graph = importGraph();
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') {
        const circle = [...stack.slice(stack.indexOf(target)), target];
        circles.push(circle.map((f) => path.relative(SRC, f)).join(' → '));
      } else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.deepEqual(circles, []);
});

test("the map names every folder of src/, and each folder it names exists", () => {
  const map = layerMap();
  const places = new Set(sourceFiles().map(placeOf));
  for (const place of places) assert.ok(map.has(place), `${place} has a row in docs/design.md's map`);
  for (const place of map.keys()) assert.ok(places.has(place), `src/${place}, named in the map, exists`);
  for (const allowed of map.values()) {
    for (const name of allowed) assert.ok(map.has(name), `"${name}", allowed in the map, is a row of it`);
  }
});

test('every path of src/ or test/ that the documentation names exists', () => {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  const documents = ['README.md', ...docs.map((name) => `docs/${name}`)];
  const missing: string[] = [];
  for (const document of documents) {
    const text = readFileSync(path.join(ROOT, document), 'utf8');
    for (const [, named] of text.matchAll(/`((?:src|test)\/[A-Za-z0-9_./-]+)`/g)) {
      if (!existsSync(path.join(ROOT, named as string))) missing.push(`${document}: ${named}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('every file of src/rules, src/identity and src/store has its rule tests at test/<same path>.test.ts', () => {
  const byName = sourceFiles().filter((file) => /^(rules|identity|store)\//.test(path.relative(SRC, file)));
  const missing = byName
    .map((file) => path.join('test', path.relative(SRC, file)).replace(/\.ts$/, '.test.ts'))
    .filter((testFile) => !existsSync(path.join(ROOT, testFile)));
  assert.ok(byName.length > 30, 'the three layers are found');
  assert.deepEqual(missing, []);
});

test("the walk-through's functions are each defined in the file named before them", () => {
  const section = DESIGN.slice(DESIGN.indexOf('## Follow one request'), DESIGN.indexOf('## Group commit'));
  const tokens = [...section.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  let file: string | null = null;
  const checked: string[] = [];
  const missing: string[] = [];
  for (const token of tokens) {
    if (/^src\/.+\.ts$/.test(token)) file = token;
    const name = /^([A-Za-z_$][\w$]*)\(\)$/.exec(token)?.[1];
    if (name === undefined) continue;
    assert.ok(file !== null, `${name}() comes after a file`);
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const definitions = [`function\\s+${name}\\b`, `^\\s*(?:async\\s+)?${name}\\s*[(<]`, `const\\s+${name}\\s*=`];
    const defined = new RegExp(`(?:${definitions.join('|')})`, 'm');
    if (!defined.test(text)) missing.push(`${name}() in ${file}`);
    checked.push(name);
  }
  assert.ok(checked.length >= 30, `the walk-through names its functions (${checked.length})`);
  assert.deepEqual(missing, []);
});

test('each row of the map allows only layers its files import', () => {
  const graph = importGraph();
  const unused: string[] = [];
  for (const [place, allowed] of layerMap()) {
    const imported = new Set<string>();
    for (const [file, imports] of graph) {
      if (placeOf(file) !== place) continue;
      for (const target of imports) imported.add(placeOf(target));
    }
    for (const name of allowed) if (!imported.has(name)) unused.push(`${place} may import ${name}, but does not`);
  }
  assert.deepEqual(unused, []);
});

test('every file of src/ and test/ is under 300 lines, of at most 120 characters each', () => {
  const files = [...sourceFiles(), ...sourceFiles(path.join(ROOT, 'test'))];
  assert.ok(files.length > 100, 'the files were found');
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const counted = lines.at(-1) === '' ? lines.length - 1 : lines.length;
    assert.ok(counted < 300, `${path.relative(ROOT, file)} has ${counted} lines`);
    const long = lines.findIndex((line) => line.length > 120);
    assert.equal(long, -1, `${path.relative(ROOT, file)}:${long + 1} is over 120 characters`);
  }
});
