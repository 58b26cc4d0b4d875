// How deep a request goes, as `npm run depth` measures it (test/bench/depth.ts): a reader follows a
// REST follow-up through at most 20 files of src/, and the figures the docs give are the ones
// measured now, so the walk-through in docs/design.md cannot drift from the code it describes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, runCommand } from '../helpers.ts';

const MOST_FILES = 20;

test('npm run depth: a REST follow-up runs in at most 20 files, and the docs state the figures measured', async () => {
  const result = await runCommand('npm', ['run', '-s', 'depth'], { timeoutMs: 120_000 });
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  const figures = lines.map((line) => /^(.+): (\d+) functions in (\d+) files$/.exec(line));
  assert.equal(figures.length, 3, result.stdout);
  for (const figure of figures) assert.ok(figure, `a figure per door: ${result.stdout}`);
  const rest = figures[0] as RegExpExecArray;
  assert.match(rest[1] as string, /^REST POST/);
  assert.ok(Number(rest[3]) <= MOST_FILES, `${rest[0]}: at most ${MOST_FILES} files`);
  const design = readFileSync(path.join(ROOT, 'docs/design.md'), 'utf8').replace(/\s+/g, ' ');
  assert.ok(design.includes(`runs ${rest[2]} functions in ${rest[3]} files`), 'docs/design.md states the REST figure');
  const performance = readFileSync(path.join(ROOT, 'docs/performance.md'), 'utf8');
  for (const line of lines) assert.ok(performance.includes(line), `docs/performance.md states: ${line}`);
});
