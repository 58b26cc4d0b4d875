// The site the owner names (src/rules/site-names.ts): kept lower case and in ASCII, a registrable
// domain; what is no site is refused saying why, and what a subdomain belongs to.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { siteNamed } from '../../src/rules/site-names.ts';
import { Refusal } from '../../src/refusals/refusal.ts';

test('the site the owner names is kept lower case and in ASCII; what is no site is refused saying why', () => {
  const accepted: [given: string, site: string][] = [
    ['agent.example', 'agent.example'],
    [' Agent.Example ', 'agent.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['a.co.uk', 'a.co.uk'],
  ];
  for (const [given, site] of accepted) assert.equal(siteNamed(given), site, given);
  const refused: [given: string, says: RegExp][] = [
    ['sub.agent.example', /^sub\.agent\.example is not a site: the site it belongs to is agent\.example\.$/],
    ['https://agent.example/', /is not a site: give a registrable domain such as agent\.example \(no scheme/],
    ['agent.example:443', /give a registrable domain/],
    ['', /give a registrable domain/],
    ['.example', /give a registrable domain/],
    ['example.', /give a registrable domain/],
    ['a b.example', /give a registrable domain/],
  ];
  for (const [given, says] of refused) {
    assert.throws(
      () => siteNamed(given),
      (err) => err instanceof Refusal && err.reason === 'not_a_site' && says.test(err.message),
      JSON.stringify(given),
    );
  }
});
