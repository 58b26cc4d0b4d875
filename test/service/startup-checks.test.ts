// What start-up says about a configuration that runs but is probably not what the owner meant:
// one `Warning:` line each, with its fix.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/base/config.ts';
import { startupWarnings } from '../../src/service/startup-checks.ts';
import { startServerProcess, tempDir } from '../helpers.ts';

test('start-up says what looks misconfigured, one line each with its fix', async (t) => {
  const dir = tempDir(t);
  // Everything start-up printed, read once the server has stopped: no line can still be on its way.
  const printed = async (env: Record<string, string>) => {
    const server = await startServerProcess(t, env);
    await server.stop('SIGTERM');
    return server.output();
  };
  const proxied = await printed({ DB_PATH: path.join(dir, 'a.db'), TRUST_PROXY: '1' });
  assert.match(proxied, /^Warning: TRUST_PROXY=1, but PUBLIC_BASE_URL is not set: .* set PUBLIC_BASE_URL/m);
  const example = await printed({ DB_PATH: path.join(dir, 'b.db'), PUBLIC_BASE_URL: 'https://agents.example.org' });
  assert.match(example, /^Warning: PUBLIC_BASE_URL is still an example \(agents\.example\.org\)/m);
  const exposed = await printed({
    DB_PATH: path.join(dir, 'c.db'),
    PUBLIC_BASE_URL: 'https://contact.test',
    TRUST_PROXY: '1',
    HOST: '0.0.0.0',
  });
  const warnings = exposed.split('\n').filter((line) => line.startsWith('Warning:'));
  assert.equal(warnings.length, 1, exposed);
  assert.match(
    warnings[0] as string,
    new RegExp(
      '^Warning: TRUST_PROXY=1 with HOST=0\\.0\\.0\\.0: anyone who reaches port \\d+ without passing through ' +
        'your proxy chooses the address they are counted as .* keep HOST=127\\.0\\.0\\.1',
    ),
  );
  const fine = await printed({ DB_PATH: path.join(dir, 'd.db'), PUBLIC_BASE_URL: 'https://a.test', TRUST_PROXY: '1' });
  assert.doesNotMatch(fine, /Warning/);
});

test('TRUST_PROXY=1 warns of every HOST that is not this machine alone, and of none that is', () => {
  const warned = (host: string, trustProxy = '1') => {
    const config = loadConfig({ HOST: host, TRUST_PROXY: trustProxy, PUBLIC_BASE_URL: 'https://contact.test' });
    const running = { ...config, publicBaseUrl: 'https://contact.test', listenUrl: 'http://127.0.0.1:8080' };
    return startupWarnings(running, true).some((warning) => warning.includes(`with HOST=${host}:`));
  };
  for (const host of ['0.0.0.0', '::', '192.168.1.5', '203.0.113.7', 'server.lan']) assert.ok(warned(host), host);
  for (const host of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) {
    assert.ok(!warned(host), host);
  }
  assert.ok(!warned('0.0.0.0', '0'), 'without TRUST_PROXY the header is not believed: nothing to warn of');
});
