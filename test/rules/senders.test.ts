// Who a sender is (src/rules/senders.ts): the sender a client address counts as for every per-address
// limit (an IPv6 address its /64, an IPv4-mapped one its IPv4 address), and the site the owner names
// to block or trust. (Through the proxy header's spellings: test/rules/rates.test.ts.)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { senderOf, siteNamed } from '../../src/rules/senders.ts';
import { Refusal } from '../../src/refusals/refusal.ts';
import { assertRefused, newKey, request, startTestService } from '../helpers.ts';

test('an address counts as itself when IPv4, as its /64 when IPv6; what is no address stays as it is', () => {
  const table: [address: string, sender: string][] = [
    ['203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['unknown', 'unknown'],
    ['2001:db8::zz', '2001:db8::zz'],
  ];
  for (const [address, sender] of table) assert.equal(senderOf(address), sender, address);
});

test('an IPv6 client counts as its /64 for every per-address limit, an IPv4-mapped one as its IPv4', async (t) => {
  const service = await startTestService(t, { env: { TRUST_PROXY: '1', CREATE_LIMIT_PER_HOUR: '2' } });
  const open = (address: string) =>
    request(service.url, 'POST', '/api/v1/conversations', {
      key: newKey(),
      json: { message: 'from a /64' },
      headers: { 'x-forwarded-for': address },
    });
  assert.equal((await open('2001:db8:1:2::1')).status, 201);
  assert.equal((await open('2001:db8:1:2:aaaa::4')).status, 201);
  assertRefused(await open('2001:0db8:0001:0002:0:0:0:9'), 429, /opened per hour/, 'another address of the same /64');
  assert.equal((await open('2001:db8:1:3::1')).status, 201, 'the next /64 is another sender');
  assert.equal((await open('203.0.113.9')).status, 201);
  assert.equal((await open('::ffff:203.0.113.9')).status, 201);
  assertRefused(await open('203.0.113.9'), 429, /opened per hour/, 'the mapped form counted as the IPv4 address');
  assert.equal(service.logs.at(-1)?.client, '203.0.113.9', 'the log keeps the address itself');
});

test('an IPv4 address mapped into IPv6, written in hex, counts as the IPv4 address', () => {
  assert.equal(senderOf('::ffff:0102:0304'), '1.2.3.4');
  assert.equal(senderOf('::FFFF:10.0.0.1'), '10.0.0.1');
  assert.equal(senderOf('2001:0db8:0001:0002:0:0:0:9'), '2001:db8:1:2::/64');
});

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
