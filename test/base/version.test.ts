// The version every place shows (/health, contact-info, the MCP server info, the agent card, the
// User-Agent) is a release only when the code is that release: between releases it says -dev, so an
// owner can tell from outside that what runs is not the last release, whose backups and rollback
// steps may no longer fit.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SERVICE_VERSION } from '../../src/base/version.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { ROOT } from '../helpers.ts';
import { releases, unreleasedEntry } from '../releases.ts';

const json = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
const numbers = (version: string) => version.split('-')[0]?.split('.').map(Number) as [number, number, number];

function isLater(version: string, than: string): boolean {
  const [a, b] = [numbers(version), numbers(than)];
  const first = a.findIndex((part, i) => part !== b[i]);
  return first !== -1 && (a[first] as number) > (b[first] as number);
}

test('the CHANGELOG names each release with its commit, tag and schema, newest first', () => {
  const recorded = releases();
  assert.ok(recorded.length >= 2, `${recorded.length} releases found`);
  assert.deepEqual(
    recorded.map((release) => release.tag),
    recorded.map((release) => `v${release.version}`),
  );
  for (let i = 1; i < recorded.length; i++) {
    assert.ok(isLater(recorded[i - 1]?.version as string, recorded[i]?.version as string), 'newest first');
  }
});

test('between releases the version ends in -dev, and a release is exactly what its entry says', () => {
  const [last] = releases();
  assert.ok(last);
  assert.equal(SERVICE_VERSION, json('package.json').version);
  assert.equal(json('package-lock.json').version, SERVICE_VERSION, 'npm install would write it so');
  const unreleased = unreleasedEntry();
  if (MIGRATIONS.length !== last.schema || unreleased !== '') {
    const why = `${MIGRATIONS.length} migrations, ${last.schema} in ${last.version}; ${unreleased.length} unreleased`;
    assert.match(SERVICE_VERSION, /^\d+\.\d+\.\d+-dev$/, `main differs from ${last.version} (${why})`);
    assert.ok(isLater(SERVICE_VERSION, last.version), `${SERVICE_VERSION} names a version after ${last.version}`);
  } else {
    assert.equal(SERVICE_VERSION, last.version, 'the code is the last release');
  }
});
