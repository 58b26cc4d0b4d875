// Seeded fuzzing over every route: no 5xx, every refusal carries the error body, no
// prototype is polluted, and the server still answers. A failure names its seed and case:
// replay it with FUZZ_SEED=<seed> npm test.

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { openConversation, startTestService } from './helpers.ts';
import { seededRandom } from './random.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const FETCH_CASES = 2500;
const RAW_CASES = 400;
const CONCURRENCY = 8;

test(
  `thousands of hostile requests get no 5xx and always the error body (seed ${SEED})`,
  { timeout: 120_000 },
  async (t) => {
    const random = seededRandom(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '0', POLL_INTERVAL_SECONDS: '0' } });
    const mine = await openConversation(service.url);
    const theirs = await openConversation(service.url);
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

    const ids = [
      mine.id,
      theirs.id,
      mine.id.toUpperCase(),
      'not-a-uuid',
      '00000000-0000-0000-0000-000000000000',
      '%2e%2e',
      '..',
      '%00',
      'é',
      'a'.repeat(3000),
    ];
    const slugs = [
      'alpha-api',
      'zeta-forum',
      '%25',
      '_',
      "'%20OR%201=1",
      '..%2F..%2Fetc%2Fpasswd',
      '%E0%A4%A',
      '%C0%AE',
      '😀',
      'a'.repeat(5000),
    ];
    const paths = () => {
      const id = pick(ids);
      return pick([
        '/api/v1/health',
        '/api/v1/contact-info',
        '/api/v1/directory',
        '/api/v1/communities',
        '/api/v1/tools',
        `/api/v1/directory/${pick(slugs)}`,
        '/api/v1/conversations',
        `/api/v1/conversations/${id}`,
        `/api/v1/conversations/${id}/messages`,
        `/api/v1/conversations/${id}/updates`,
        '/',
        '/api/v1/',
        '/api/v1/directory/',
        '//api/v1/health',
        '/api/v1/../v1/health',
        `/${'x/'.repeat(500)}`,
        '/mcp',
        '/mcp/',
        '/api/v1/conversations/%00/messages',
        '/%ff%fe',
        '/api/v1/directory/%',
      ]);
    };
    const numbers = [
      '0',
      '1',
      '-1',
      '1.5',
      '1e3',
      '99999999999999999999999',
      'NaN',
      'Infinity',
      '0x10',
      '',
      ' 5',
      '+5',
      '007',
      '100',
      '101',
      '10001',
      '%00',
    ];
    const query = () => {
      const parts: string[] = [];
      const count = Math.floor(random() * 4);
      for (let i = 0; i < count; i++) {
        const name = pick([
          'limit',
          'offset',
          'after',
          'q',
          'category',
          'limit[]',
          'access_token',
          '__proto__',
          'constructor',
          '%zz',
          'x',
        ]);
        const value = pick([
          ...numbers,
          'weather',
          '%',
          '_',
          "'",
          '\\',
          'a'.repeat(200),
          encodeURIComponent('é'.repeat(130)),
          '%E0%A4%A',
          mine.token,
        ]);
        parts.push(`${name}=${value}`);
        if (random() < 0.1) parts.push(`${name}=${value}`); // repeated
      }
      return parts.length ? `?${parts.join('&')}` : '';
    };
    const authorizations = [
      undefined,
      `Bearer ${mine.token}`,
      `Bearer ${theirs.token}`,
      `bearer ${mine.token}`,
      `Bearer ${mine.token.toUpperCase()}`,
      `Basic ${mine.token}`,
      'Bearer',
      'Bearer ',
      `Bearer ${mine.token}, Bearer ${theirs.token}`,
      `Token ${'f'.repeat(64)}`,
      `Bearer ${'0'.repeat(64)}`,
    ];
    const keys = [
      undefined,
      'valid-key-0001',
      '"quoted-key-01"',
      'short',
      'k'.repeat(129),
      'k'.repeat(5000),
      'has space here',
      'a,b,c,d,e,f,g,h',
      '',
    ];
    const contentTypes = [
      undefined,
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'APPLICATION/JSON',
      'application/json;;;',
      'multipart/form-data; boundary=x',
    ];
    const bodies = (): string | Uint8Array | undefined =>
      pick([
        undefined,
        '',
        '{}',
        '[]',
        'null',
        '"text"',
        '42',
        '{"message": "hello"}',
        '{"message": ""}',
        '{"message": 5}',
        '{"message": "hi", "metadata": {"agent_name": "x"}}',
        '{"message": "hi", "metadata": null}',
        '{"message": "hi", "metadata": []}',
        '{"message": "hi", "__proto__": {"polluted": true}}',
        '{"message": "hi", "constructor": {"prototype": {"polluted": true}}}',
        '{"message": "hi", "metadata": {"__proto__": {"polluted": true}}}',
        '{"message": "hi", "metadata": {"constructor": "x"}}',
        '{"message": 1e999}',
        '{"message": "hi"',
        '{"message": "\\ud800"}',
        '{"message": "a\\u0000b"}',
        `{"message": "${'x'.repeat(8001)}"}`,
        '['.repeat(10000),
        `{"a":${'['.repeat(5000)}`,
        `{"message": "${'é'.repeat(9000)}"}`,
        ' '.repeat(20000),
        new Uint8Array([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0xff, 0xfe, 0x7d]),
        new Uint8Array([0xc0, 0xae, 0x00, 0x01]),
      ]);

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    function check(label: string, status: number, text: string, method: string, contentType: string | null) {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 500) failures.push(`${label} → ${status} ${text.slice(0, 200)}`);
      if (status >= 400 && method !== 'HEAD' && contentType?.startsWith('text/html')) {
        // The web pages answer people with an HTML error page of the same status.
        if (!text.includes(`<title>Error ${status}</title>`))
          failures.push(`${label} → ${status} without the error page`);
      } else if (status >= 400 && method !== 'HEAD') {
        try {
          const body = JSON.parse(text);
          const jsonRpcError =
            body.jsonrpc === '2.0' && Number.isInteger(body.error?.code) && typeof body.error.message === 'string'; // /mcp's own errors
          const errorBody =
            Object.keys(body).join() === 'error' &&
            body.error.code === status &&
            typeof body.error.message === 'string';
          if (!jsonRpcError && !errorBody) throw new Error('shape');
        } catch {
          failures.push(`${label} → ${status} without the error body: ${text.slice(0, 200)}`);
        }
      } else if (status === 200 && label.includes('/mcp') && method === 'POST') {
        const body = JSON.parse(text);
        if (body.jsonrpc !== '2.0' || !('result' in body || 'error' in body))
          failures.push(`${label} → 200 without a JSON-RPC response: ${text.slice(0, 200)}`);
      }
    }

    // Each case starts as a valid request to a random route, then 0 to 3 parts are mutated,
    // so that cases reach every layer: routing, auth, content type, size, validation, writes.
    let keyCounter = 0;
    const validRequest = () => {
      const validKey = `fuzz-${SEED}-${keyCounter++}`;
      const auth = `Bearer ${mine.token}`;
      const json = 'application/json';
      return pick([
        {
          method: 'GET',
          path: pick(['/api/v1/directory', '/api/v1/communities', '/api/v1/tools']),
          query: `?q=${pick(['_', '%25', 'a', 'weather'])}&limit=5`,
          headers: {} as Record<string, string>,
          body: undefined as string | Uint8Array | undefined,
        },
        { method: 'GET', path: '/api/v1/directory/alpha-api', query: '', headers: {}, body: undefined },
        { method: 'GET', path: '/api/v1/health', query: '', headers: {}, body: undefined },
        {
          method: 'POST',
          path: '/api/v1/conversations',
          query: '',
          headers: { 'content-type': json, 'idempotency-key': validKey },
          body: '{"message": "hello", "metadata": {"agent_name": "fuzz"}}',
        },
        {
          method: 'GET',
          path: `/api/v1/conversations/${mine.id}`,
          query: '',
          headers: { authorization: auth },
          body: undefined,
        },
        {
          method: 'GET',
          path: `/api/v1/conversations/${mine.id}/messages`,
          query: '?after=0&limit=10',
          headers: { authorization: auth },
          body: undefined,
        },
        {
          method: 'GET',
          path: `/api/v1/conversations/${mine.id}/updates`,
          query: '?after=1',
          headers: { authorization: auth },
          body: undefined,
        },
        {
          method: 'POST',
          path: `/api/v1/conversations/${mine.id}/messages`,
          query: '',
          headers: { authorization: auth, 'content-type': json, 'idempotency-key': validKey },
          body: '{"message": "follow-up"}',
        },
        { method: 'POST', path: '/mcp', query: '', headers: { 'content-type': json }, body: pick(mcpBodies(validKey)) },
        {
          method: 'POST',
          path: '/mcp',
          query: '',
          headers: {
            'content-type': json,
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'check_updates',
          },
          body: `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "check_updates", "arguments": {"conversation_id": "${mine.id}", "access_token": "${mine.token}"}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}`,
        },
      ]);
    };
    // Valid and nearly valid JSON-RPC messages for /mcp; the mutations below spoil them further.
    const mcpBodies = (key: string) => {
      const credential = `"conversation_id": "${mine.id}", "access_token": "${mine.token}"`;
      const callTool = (name: string, args: string) =>
        `{"jsonrpc": "2.0", "id": ${Math.floor(random() * 100)}, "method": "tools/call", "params": {"name": "${name}", "arguments": ${args}}}`;
      return [
        '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}',
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "id": "x", "method": "tools/list"}',
        '{"jsonrpc": "2.0", "id": 2, "method": "ping"}',
        '[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]',
        '{"jsonrpc": "2.0", "id": null, "method": "ping"}',
        '{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": null}',
        '{"jsonrpc": "2.0", "id": {}, "method": "tools/call"}',
        '{"jsonrpc": "2.0", "id": 1, "result": {}}',
        callTool(
          'search_directory',
          pick([
            '{"q": "weather"}',
            '{"limit": 0}',
            '{"q": 5}',
            '{"kind": "robot"}',
            '[]',
            'null',
            '"x"',
            `{"q": "${'x'.repeat(200)}"}`,
          ]),
        ),
        callTool('get_listing', pick(['{"slug": "alpha-api"}', '{}', '{"slug": ["a"]}', '{"slug": "../../etc"}'])),
        callTool(
          'open_conversation',
          pick([
            `{"message": "hi", "idempotency_key": "${key}"}`,
            '{"message": ""}',
            '{"message": "hi", "metadata": {"owner": "me"}}',
            '{"message": "hi", "__proto__": {"polluted": true}}',
          ]),
        ),
        callTool(
          'send_message',
          pick([
            `{${credential}, "message": "via mcp", "idempotency_key": "${key}"}`,
            `{${credential}}`,
            `{${credential}, "message": "\\ud800"}`,
            '{"message": "no credential"}',
          ]),
        ),
        callTool(
          pick(['check_updates', 'read_messages', 'get_conversation']),
          pick([
            `{${credential}, "after": 1}`,
            `{${credential}, "after": -1}`,
            `{${credential}, "limit": 1000}`,
            `{"conversation_id": "x", "access_token": "${mine.token}"}`,
            `{${credential.replace(mine.token, theirs.token)}}`,
          ]),
        ),
        callTool(pick(['', 'nope', 'constructor', '__proto__', 'toString']), '{}'),
      ];
    };
    const mutations: ((r: ReturnType<typeof validRequest>) => void)[] = [
      (r) => (r.method = pick(['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])),
      (r) => (r.path = paths()),
      (r) => (r.query = query()),
      (r) => {
        const authorization = pick(authorizations);
        if (authorization === undefined) delete r.headers.authorization;
        else r.headers.authorization = authorization;
      },
      (r) => {
        const key = pick(keys);
        if (key === undefined) delete r.headers['idempotency-key'];
        else r.headers['idempotency-key'] = key;
      },
      (r) => {
        const type = pick(contentTypes);
        if (type === undefined) delete r.headers['content-type'];
        else r.headers['content-type'] = type;
      },
      (r) => (r.body = bodies()),
      (r) => (r.body = bodies()),
      (r) => {
        const [name, value] = pick([
          ['mcp-protocol-version', pick(['2026-07-28', '2025-11-25', '1999-01-01', ''])],
          ['mcp-method', pick(['tools/call', 'ping', ''])],
          ['mcp-name', pick(['check_updates', '=?base64?Y2hlY2tfdXBkYXRlcw==?=', '=?base64?!!?='])],
          ['origin', pick(['http://evil.example', 'null', service.url])],
        ] as const);
        r.headers[name] = value;
      },
    ];

    let next = 0;
    async function fetchWorker() {
      while (next < FETCH_CASES) {
        const index = next++;
        const r = validRequest();
        const mutationCount = Math.floor(random() * 4);
        for (let i = 0; i < mutationCount; i++) pick(mutations)(r);
        const url = service.url + r.path + r.query;
        const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body;
        const label = `case ${index} (seed ${SEED}): ${r.method} ${url.slice(0, 120)}`;
        try {
          const response = await fetch(url, { method: r.method, headers: r.headers, body });
          check(label, response.status, await response.text(), r.method, response.headers.get('content-type'));
        } catch (err) {
          failures.push(`${label} → no answer: ${(err as Error).message}`);
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, fetchWorker));

    // What fetch refuses to send: raw bytes, duplicate headers, NUL, huge headers.
    const { hostname, port } = new URL(service.url);
    const rawLines = () => {
      const method = pick(['GET', 'POST', 'get', 'G\u0000T', 'BREW', 'GET GET']);
      const target = pick([
        paths(),
        `${paths()}${query()}`,
        '/api/v1/health\u0000',
        '/api/v1/directory?q=\u0000',
        '/é',
        '*',
        'http://evil.example/api/v1/health',
        '/api/v1/health#frag',
      ]);
      const headers = [`Host: x`];
      for (const authorization of [pick(authorizations), pick(authorizations)])
        if (authorization) headers.push(`Authorization: ${authorization}`);
      if (random() < 0.3)
        headers.push(`Idempotency-Key: ${pick(['a'.repeat(20000), 'k\u00e9y-valid-1', 'dup-key-0001'])}`);
      if (random() < 0.2) headers.push('Content-Type: application/json', 'Content-Type: text/plain');
      const body = pick(['', '{"message":"raw"}', '{"message":"\u00ff\u00fe"}']);
      if (random() < 0.5)
        headers.push(`Content-Length: ${pick([String(Buffer.byteLength(body)), '-1', 'abc', '99999999999', '1, 2'])}`);
      return {
        method,
        text: `${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`,
      };
    };
    for (let index = 0; index < RAW_CASES; index++) {
      const { method, text } = rawLines();
      const label = `raw case ${index} (seed ${SEED}): ${JSON.stringify(text.slice(0, 120))}`;
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(port), hostname, () => socket.end(text));
        let received = '';
        socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
        socket.on('close', () => resolve(received));
        socket.on('error', () => resolve(received));
        socket.setTimeout(5000, () => socket.destroy());
      });
      const statusLine = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
      if (!statusLine) {
        failures.push(`${label} → no HTTP answer: ${JSON.stringify(answer.slice(0, 100))}`);
        continue;
      }
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      const body = answer.slice(head.length + 4);
      const contentType = /^content-type: (.*)$/im.exec(head)?.[1] ?? null;
      check(
        label,
        Number(statusLine[1]),
        Buffer.from(body, 'latin1').toString('utf8'),
        method.toUpperCase(),
        contentType,
      );
    }

    t.diagnostic(
      `statuses: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ')}`,
    );
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failing cases; replay with FUZZ_SEED=${SEED}`);
    assert.deepEqual(
      Object.getOwnPropertyNames(Object.prototype).sort(),
      prototypeBefore,
      `Object.prototype changed (seed ${SEED})`,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined, `prototype polluted (seed ${SEED})`);
    assert.equal((await fetch(`${service.url}/api/v1/health`)).status, 200, 'the server still answers');
    assert.deepEqual(
      service.logs.filter((entry) => entry.level === 'error'),
      [],
      `no unexpected errors were logged (seed ${SEED})`,
    );
  },
);

test('deeply nested JSON in any field /mcp reads or echoes gets no 5xx, and nothing is logged as an error', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const deep = `${'['.repeat(40_000)}${']'.repeat(40_000)}`;
  const credential = `"conversation_id": "${id}", "access_token": "${token}"`;
  const call = (args: string) =>
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "send_message", "arguments": {${args}}}}`;
  const bodies = [
    `{"jsonrpc": ${deep}, "id": 1, "method": "ping"}`,
    `{"jsonrpc": "2.0", "id": ${deep}, "method": "ping"}`,
    `{"jsonrpc": "2.0", "id": 1, "method": ${deep}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": ${deep}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_listing", "arguments": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": ${deep}}}}`,
    call(`${credential}, "message": ${deep}`),
    call(`${credential}, "message": "hi", "idempotency_key": ${deep}`),
    call(`"conversation_id": ${deep}, "access_token": "${token}", "message": "hi"`),
    call(`"conversation_id": "${id}", "access_token": ${deep}, "message": "hi"`),
    call(`${credential}, "message": "hi", ${JSON.stringify('x'.repeat(10))}: ${deep}`),
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "open_conversation", "arguments": {"message": "hi", "metadata": ${deep}}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_directory", "arguments": {"q": ${deep}, "kind": ${deep}}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "check_updates", "arguments": {${credential}, "after": ${deep}, "wait": ${deep}}}}`,
  ];
  const modernHeaders = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'send_message',
  };
  for (const [index, body] of bodies.entries()) {
    for (const headers of [{}, modernHeaders]) {
      const response = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });
      const text = await response.text();
      assert.ok(response.status < 500, `case ${index}: ${response.status} ${text.slice(0, 200)}`);
      assert.ok(!text.includes('[[[['), `case ${index}: the answer does not echo the nesting`);
    }
  }
  assert.deepEqual(
    service.logs.filter((entry) => entry.level === 'error'),
    [],
    'no unexpected error was logged',
  );
  assert.ok(!JSON.stringify(service.logs).includes('    at '), 'no stack trace in the log');
});
