// The outbound guard before it sends: public addresses only, https unless the host is allowed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPublicAddress } from '../../src/base/addresses.ts';
import { checkOutboundUrl, type OutboundPolicy } from '../../src/outbound/guard.ts';
import { assertRefusal } from './refusal.ts';

const NO_HOSTS: OutboundPolicy = { allowedHosts: [] };

test('isPublicAddress takes public IPv4 addresses and refuses every special-purpose IPv4 range', () => {
  const table: [string, boolean][] = [
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['93.184.215.14', true],
    ['192.31.196.1', true],
    ['100.128.0.1', true],
    ['9.255.255.255', true],
    ['11.0.0.0', true],
    ['100.63.255.255', true],
    ['223.255.255.255', true],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['10.0.0.5', false],
    ['100.64.0.1', false],
    ['100.127.255.255', false],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['169.254.169.254', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.0.0.9', false],
    ['192.0.0.170', false],
    ['192.0.2.1', false],
    ['192.88.99.1', false],
    ['192.168.1.1', false],
    ['198.18.0.1', false],
    ['198.19.255.255', false],
    ['198.20.0.1', true],
    ['198.51.100.7', false],
    ['203.0.113.9', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['240.0.0.1', false],
    ['255.255.255.255', false],
  ];
  for (const [address, expected] of table) assert.equal(isPublicAddress(address), expected, address);
});

test('isPublicAddress takes public IPv6 addresses and refuses every special-purpose IPv6 range', () => {
  const table: [string, boolean][] = [
    ['2606:4700:4700::1111', true],
    ['2001:4860:4860::8888', true],
    ['2620:4f:8000::1', true],
    ['2000::1', true],
    ['2001:200::1', true],
    ['1fff:ffff::1', false],
    ['2001:1ff:ffff::1', false],
    ['::', false],
    ['::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['febf::1', false],
    ['fec0::1', false],
    ['ff02::1', false],
    ['ff0e::1', false],
    ['2001:db8::1', false],
    ['3fff::1', false],
    ['100::1', false],
    ['2001::1', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['64:ff9b:1::1', false],
    ['5f00::1', false],
    ['4000::1', false],
  ];
  for (const [address, expected] of table) assert.equal(isPublicAddress(address), expected, address);
});

test('isPublicAddress judges an IPv4 address written inside IPv6 (mapped, compatible, NAT64, 6to4) as IPv4', () => {
  const table: [string, boolean][] = [
    ['::ffff:0:0:1', false],
    ['::ffff:8.8.8.8', true],
    ['::ffff:808:808', true],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.5', false],
    ['::ffff:169.254.169.254', false],
    ['0:0:0:0:0:ffff:c0a8:101', false],
    ['::8.8.8.8', true],
    ['::127.0.0.1', false],
    ['::10.0.0.5', false],
    ['64:ff9b::8.8.8.8', true],
    ['64:ff9b::10.0.0.5', false],
    ['64:ff9b::7f00:1', false],
    ['2002:808:808::1', true],
    ['2002:a00:5::1', false],
    ['2002:7f00:1::', false],
    ['2002:c0a8:101::1', false],
  ];
  for (const [address, expected] of table) assert.equal(isPublicAddress(address), expected, address);
});

test('isPublicAddress refuses what is not a plain address: a zone, a host name, an empty or malformed one', () => {
  const table: [string, boolean][] = [
    ['fe80::1%eth0', false],
    ['localhost', false],
    ['', false],
    ['1.2.3.04', false],
    ['::ffff:1.2.3', false],
  ];
  for (const [address, expected] of table) assert.equal(isPublicAddress(address), expected, address);
});

test('checkOutboundUrl refuses each broken rule with a sentence naming it, echoing at most a bounded part', () => {
  const table: [unknown, string, RegExp][] = [
    [42, 'url', /^the URL must be a string$/],
    [`https://example.com/${'a'.repeat(2100)}`, 'length', /^the URL must be at most 2048 characters \(it has 2120\)$/],
    ['not a url', 'url', /^the URL is not a valid absolute URL \(https:\/\/host\/path\)$/],
    ['ftp://example.com/hook', 'scheme', /^the URL must use https, not ftp$/],
    ['http://example.com/hook', 'http', /^the URL must use https, not http; http is only for hosts the owner/],
    ['https://user:secret@example.com/hook', 'userinfo', /user name or password/],
    ['https://:secret@example.com/hook', 'userinfo', /user name or password/],
    ['https://10.0.0.5/hook', 'address', /^the URL's host 10\.0\.0\.5 is a private address \(10\.0\.0\.5\), which/],
    ['https://2130706433/', 'address', /127\.0\.0\.1 is a loopback address/],
    ['https://0x7f.1/', 'address', /a loopback address/],
    ['https://127.0.0.1./', 'address', /a loopback address/],
    ['https://[::1]:8443/', 'address', /a loopback address \(::1\)/],
    ['https://[::ffff:169.254.169.254]/', 'address', /an IPv4-mapped form of a link-local address/],
    ['https://[fe80::1]/', 'address', /a link-local address/],
  ];
  for (const [raw, rule, message] of table) {
    assert.throws(() => checkOutboundUrl(raw, NO_HOSTS), assertRefusal(rule, message), String(raw));
  }
  const long = `https://${'x'.repeat(3000)}`;
  assert.throws(
    () => checkOutboundUrl(long, NO_HOSTS),
    (err: Error) => err.message.length < 120,
  );
  const invalid = `https://user:secret@[${'x'.repeat(1500)}`;
  assert.throws(
    () => checkOutboundUrl(invalid, NO_HOSTS),
    (err: Error) => !err.message.includes('secret'),
  );
});

test('checkOutboundUrl takes https on any port, and http and private addresses only for allowed hosts', () => {
  const anyPort = 'https://example.com:8443/hook?x=1';
  assert.equal(checkOutboundUrl(anyPort, NO_HOSTS).href, anyPort);
  assert.equal(checkOutboundUrl('https://8.8.8.8/', NO_HOSTS).hostname, '8.8.8.8');
  const intranet: OutboundPolicy = { allowedHosts: ['127.0.0.1', 'hooks.internal', '::1'] };
  assert.equal(checkOutboundUrl('http://127.0.0.1:9/', intranet).port, '9');
  assert.equal(checkOutboundUrl('http://HOOKS.internal./x', intranet).hostname, 'hooks.internal.');
  assert.equal(checkOutboundUrl('http://[0:0:0:0:0:0:0:1]/', intranet).hostname, '[::1]');
  assert.throws(() => checkOutboundUrl('http://127.0.0.2/', intranet), assertRefusal('http', /https/));
  assert.throws(() => checkOutboundUrl('https://127.0.0.2/', intranet), assertRefusal('address', /loopback/));
});
