// The releases as CHANGELOG.md records them (version, commit, tag, database schema), and each
// release's commit found the way docs/deployment.md tells an owner to: the tag, or where tags were
// not fetched, the commit the CHANGELOG names.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers.ts';

export interface Release {
  readonly version: string;
  /** the commit as the CHANGELOG names it: a prefix of its hash */
  readonly commit: string;
  readonly tag: string;
  /** the schema version (migrations) its database has */
  readonly schema: number;
}

const CHANGELOG = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
const ENTRY = new RegExp(
  '^## (\\d+\\.\\d+\\.\\d+) \\(\\d{4}-\\d\\d-\\d\\d\\)\\n\\n' +
    'Release: commit `([0-9a-f]{12,40})`, tag `(v[^`]+)`, database schema (\\d+)\\.',
  'gm',
);

/** Every release, newest first. */
export function releases(): Release[] {
  return [...CHANGELOG.matchAll(ENTRY)].map(([, version, commit, tag, schema]) => ({
    version: version as string,
    commit: commit as string,
    tag: tag as string,
    schema: Number(schema),
  }));
}

/** The text of the CHANGELOG's "Unreleased" entry, without its heading ('' when there is none). */
export function unreleasedEntry(): string {
  const start = CHANGELOG.indexOf('\n## Unreleased\n');
  if (start === -1) return '';
  const end = CHANGELOG.indexOf('\n## ', start + 1);
  return CHANGELOG.slice(start + '\n## Unreleased\n'.length, end).trim();
}

/** Runs git and gives back what it printed, trimmed; throws when git fails. */
export function git(args: string[], cwd = ROOT, env: Record<string, string> = {}): string {
  const options = { cwd, env: { ...process.env, ...env }, encoding: 'utf8' as const };
  return execFileSync('git', args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * The full hash of a release's commit, as the CHANGELOG names it. Without the history (a shallow
 * clone) it cannot be found: that fails, saying how to fetch it, rather than passing untested.
 */
export function releaseCommit(release: Release): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${release.commit}^{commit}`]);
  } catch {
    throw new Error(
      `release ${release.version}'s commit ${release.commit} (CHANGELOG.md) is not in this clone; its history ` +
        'is missing (a shallow clone?): run `git fetch --unshallow --tags` (or clone without --depth) and test again',
    );
  }
}

/** The commit the release's tag points at, or null where tags were not fetched. */
export function taggedCommit(release: Release): string | null {
  try {
    return git(['rev-parse', '--verify', '--quiet', `refs/tags/${release.tag}^{commit}`]);
  } catch {
    return null;
  }
}

/**
 * Why the releases cannot be read here, or null when they can: a shallow clone has no history to
 * read them from (.ci/run fetches it when it can). Its tests are then skipped saying so, visibly.
 */
export function historyMissing(): string | null {
  if (git(['rev-parse', '--is-shallow-repository']) !== 'true') return null;
  return 'this clone is shallow, so the releases\' commits are not here: run `git fetch --unshallow --tags`';
}
