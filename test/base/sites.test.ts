// The site of a host (src/base/sites.ts) against an independent implementation, tldts, on the same
// list: the shipped data/public-suffix-list.dat is what the installed tldts carries, and every host
// below, hard cases and hosts built from every rule of the list, gets the same site from both.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { getDomain } from 'tldts';
import { parseSuffixList, siteOf, siteOfHost, suffixList } from '../../src/base/sites.ts';
import { ROOT } from '../helpers.ts';
import { publicSuffixListText } from './public-suffix-list.ts';

const SHIPPED = readFileSync(path.join(ROOT, 'data/public-suffix-list.dat'), 'utf8');

/** What tldts calls the site: the registrable domain, or the host itself for a suffix or an address. */
function tldtsSite(host: string): string {
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

test('the shipped list is the one the installed tldts carries, with its date', async () => {
  const date = suffixList().date;
  assert.match(date, /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(SHIPPED, await publicSuffixListText(date), 'run test/base/public-suffix-list.ts after updating tldts');
});

const HARD_CASES: [host: string, site: string][] = [
  ['a.b.example.co.uk', 'example.co.uk'], // a two-label ICANN suffix
  ['example.co.uk', 'example.co.uk'],
  ['co.uk', 'co.uk'], // a suffix is its own site
  ['x.github.io', 'x.github.io'], // a private suffix: each user's pages are a site
  ['a.x.github.io', 'x.github.io'],
  ['github.io', 'github.io'],
  ['a.b.ck', 'a.b.ck'], // *.ck: b.ck is a suffix
  ['b.ck', 'b.ck'],
  ['foo.www.ck', 'www.ck'], // !www.ck: www.ck is registrable
  ['www.ck', 'www.ck'],
  ['a.city.kobe.jp', 'city.kobe.jp'], // *.kobe.jp with !city.kobe.jp
  ['a.b.kobe.jp', 'a.b.kobe.jp'],
  ['agent.example', 'agent.example'], // no rule: the last label is the suffix
  ['a.b.agent.example', 'agent.example'],
  ['agent.test', 'agent.test'],
  ['localhost', 'localhost'],
  ['a.localhost', 'a.localhost'],
  ['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de'], // IDN, as a URL spells it: münchen.de
  ['a.xn--fiqs8s', 'a.xn--fiqs8s'], // an IDN TLD (中国)
  ['a.b.xn--55qx5d.cn', 'b.xn--55qx5d.cn'], // an IDN rule under cn (公司.cn)
  ['127.0.0.1', '127.0.0.1'], // an address is its own site
  ['[2001:db8::1]', '[2001:db8::1]'],
];

test('hard cases get the same site as tldts gives, and the one the table states', () => {
  for (const [host, site] of HARD_CASES) {
    assert.equal(siteOfHost(host), site, host);
    if (!host.startsWith('[')) assert.equal(tldtsSite(host), site, `tldts: ${host}`);
  }
});

test('a host under every rule of the list, and one label more, gets the same site as tldts gives', () => {
  const list = suffixList();
  const hosts = [
    ...[...list.rules].flatMap((rule) => [rule, `agent.${rule}`, `a.agent.${rule}`]),
    ...[...list.wildcards].flatMap((base) => [`x.${base}`, `agent.x.${base}`, `a.agent.x.${base}`]),
    ...[...list.exceptions].flatMap((rule) => [rule, `a.${rule}`]),
  ];
  assert.ok(hosts.length > 30_000, `${hosts.length} hosts`);
  const differ = hosts.filter((host) => siteOfHost(host) !== tldtsSite(host));
  assert.deepEqual(differ.slice(0, 10), [], `${differ.length} hosts differ`);
});

test("an identity's site is its host's, whatever its port or path", () => {
  assert.equal(siteOf('https://a.agent.example:8443'), 'agent.example');
  assert.equal(siteOf('https://b.agent.example/keys/jwks.json'), 'agent.example');
  assert.equal(siteOf('http://127.0.0.1:9000'), '127.0.0.1');
  assert.equal(siteOf('https://[::1]:9000/jwks'), '[::1]');
  assert.equal(siteOf('https://bücher.example.co.uk'), 'example.co.uk');
  assert.equal(siteOf('not a url'), 'not a url', 'a damaged stored identity is its own site');
});

test('a list file without a date or without rules is refused, naming what is missing', () => {
  assert.throws(() => parseSuffixList('com\n'), /Date: YYYY-MM-DD/);
  assert.throws(() => parseSuffixList('// Date: 2026-11-25\n// only comments\n'), /no rules/);
});
