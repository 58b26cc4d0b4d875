// The values the fuzz cases (fuzz-cases.ts) are made of: right, wrong and hostile.

export const SLUGS = [
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

export const NUMBERS = [
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

export const KEYS = [
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

export const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'APPLICATION/JSON',
  'application/json;;;',
  'multipart/form-data; boundary=x',
];

export const BODIES: readonly (string | Uint8Array | undefined)[] = [
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
];

export const QUERY_NAMES = [
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
];

// JSON-RPC messages that need no conversation: valid, and each a little wrong.
export const MCP_MESSAGES = [
  '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", ' +
    '"capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}',
  '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
  '{"jsonrpc": "2.0", "id": "x", "method": "tools/list"}',
  '{"jsonrpc": "2.0", "id": 2, "method": "ping"}',
  '[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]',
  '{"jsonrpc": "2.0", "id": null, "method": "ping"}',
  '{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
  '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": null}',
  '{"jsonrpc": "2.0", "id": {}, "method": "tools/call"}',
  '{"jsonrpc": "2.0", "id": 1, "result": {}}',
];

export const SEARCH_ARGUMENTS = [
  '{"q": "weather"}',
  '{"limit": 0}',
  '{"q": 5}',
  '{"kind": "robot"}',
  '[]',
  'null',
  '"x"',
  `{"q": "${'x'.repeat(200)}"}`,
];

// The 2026-07-28 headers of a valid check_updates call.
export const MODERN_CHECK_UPDATES = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'check_updates',
};
