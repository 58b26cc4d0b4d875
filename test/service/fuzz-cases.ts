// The cases of the fuzz test (fuzz.test.ts): each starts as a valid request to a random route,
// then 0 to 3 parts are mutated, so that cases reach every layer: routing, auth, content type,
// size, validation, writes. Raw cases send what fetch refuses to: bad bytes, duplicate headers.

import {
  BODIES,
  CONTENT_TYPES,
  KEYS,
  MCP_MESSAGES,
  MODERN_CHECK_UPDATES,
  NUMBERS,
  QUERY_NAMES,
  SEARCH_ARGUMENTS,
  SLUGS,
} from './fuzz-values.ts';

/** One request to send, as fetch takes it. */
export interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

interface Conversation {
  readonly id: string;
  readonly token: string;
}

export class FuzzCases {
  readonly #random: () => number;
  readonly #mine: Conversation;
  readonly #theirs: Conversation;
  readonly #serviceUrl: string;
  readonly #seed: number;
  #keyCounter = 0;

  constructor(random: () => number, mine: Conversation, theirs: Conversation, serviceUrl: string, seed: number) {
    this.#random = random;
    this.#mine = mine;
    this.#theirs = theirs;
    this.#serviceUrl = serviceUrl;
    this.#seed = seed;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }

  /** A valid request to a random route, with 0 to 3 of its parts spoiled. */
  request(): FuzzRequest {
    const request = this.#validRequest();
    const count = Math.floor(this.#random() * 4);
    for (let i = 0; i < count; i++) this.#mutate(request);
    return request;
  }

  /** A path: every route, with ids and slugs that are right, wrong or hostile. */
  path(): string {
    const id = this.pick([
      this.#mine.id,
      this.#theirs.id,
      this.#mine.id.toUpperCase(),
      'not-a-uuid',
      '00000000-0000-0000-0000-000000000000',
      '%2e%2e',
      '..',
      '%00',
      'é',
      'a'.repeat(3000),
    ]);
    return this.pick([
      '/api/v1/health',
      '/api/v1/contact-info',
      '/api/v1/directory',
      '/api/v1/communities',
      '/api/v1/tools',
      `/api/v1/directory/${this.pick(SLUGS)}`,
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
  }

  /** A query of 0 to 3 parameters, some repeated, one perhaps a credential. */
  query(): string {
    const parts: string[] = [];
    const count = Math.floor(this.#random() * 4);
    for (let i = 0; i < count; i++) {
      const name = this.pick(QUERY_NAMES);
      const value = this.pick([
        ...NUMBERS,
        'weather',
        '%',
        '_',
        "'",
        '\\',
        'a'.repeat(200),
        encodeURIComponent('é'.repeat(130)),
        '%E0%A4%A',
        this.#mine.token,
      ]);
      parts.push(`${name}=${value}`);
      if (this.#random() < 0.1) parts.push(`${name}=${value}`); // repeated
    }
    return parts.length ? `?${parts.join('&')}` : '';
  }

  authorization(): string | undefined {
    const { token } = this.#mine;
    return this.pick([
      undefined,
      `Bearer ${token}`,
      `Bearer ${this.#theirs.token}`,
      `bearer ${token}`,
      `Bearer ${token.toUpperCase()}`,
      `Basic ${token}`,
      'Bearer',
      'Bearer ',
      `Bearer ${token}, Bearer ${this.#theirs.token}`,
      `Token ${'f'.repeat(64)}`,
      `Bearer ${'0'.repeat(64)}`,
    ]);
  }

  #validRequest(): FuzzRequest {
    const key = `fuzz-${this.#seed}-${this.#keyCounter++}`;
    const auth = { authorization: `Bearer ${this.#mine.token}` };
    const json = 'application/json';
    const conversation = `/api/v1/conversations/${this.#mine.id}`;
    const get = (path: string, query = '', headers: Record<string, string> = {}): FuzzRequest => ({
      method: 'GET',
      path,
      query,
      headers,
      body: undefined,
    });
    const post = (path: string, headers: Record<string, string>, body: string): FuzzRequest => ({
      method: 'POST',
      path,
      query: '',
      headers: { 'content-type': json, ...headers },
      body,
    });
    return this.pick([
      get(
        this.pick(['/api/v1/directory', '/api/v1/communities', '/api/v1/tools']),
        `?q=${this.pick(['_', '%25', 'a', 'weather'])}&limit=5`,
      ),
      get('/api/v1/directory/alpha-api'),
      get('/api/v1/health'),
      post(
        '/api/v1/conversations',
        { 'idempotency-key': key },
        '{"message": "hello", "metadata": {"agent_name": "fuzz"}}',
      ),
      get(conversation, '', auth),
      get(`${conversation}/messages`, '?after=0&limit=10', auth),
      get(`${conversation}/updates`, '?after=1', auth),
      post(`${conversation}/messages`, { ...auth, 'idempotency-key': key }, '{"message": "follow-up"}'),
      post('/mcp', {}, this.pick(this.#mcpBodies(key))),
      post('/mcp', MODERN_CHECK_UPDATES, this.#modernCheckUpdates()),
    ]);
  }

  #modernCheckUpdates(): string {
    const args = `{"conversation_id": "${this.#mine.id}", "access_token": "${this.#mine.token}"}`;
    return (
      `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "check_updates", "arguments": ${args}, ` +
      '"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", ' +
      '"io.modelcontextprotocol/clientCapabilities": {}}}}'
    );
  }

  /** Valid and nearly valid JSON-RPC messages for /mcp; the mutations spoil them further. */
  #mcpBodies(key: string): string[] {
    const { id, token } = this.#mine;
    const credential = `"conversation_id": "${id}", "access_token": "${token}"`;
    const callTool = (name: string, args: string) =>
      `{"jsonrpc": "2.0", "id": ${Math.floor(this.#random() * 100)}, "method": "tools/call", ` +
      `"params": {"name": "${name}", "arguments": ${args}}}`;
    return [
      ...MCP_MESSAGES,
      callTool('search_directory', this.pick(SEARCH_ARGUMENTS)),
      callTool('get_listing', this.pick(['{"slug": "alpha-api"}', '{}', '{"slug": ["a"]}', '{"slug": "../../etc"}'])),
      callTool(
        'open_conversation',
        this.pick([
          `{"message": "hi", "idempotency_key": "${key}"}`,
          '{"message": ""}',
          '{"message": "hi", "metadata": {"owner": "me"}}',
          '{"message": "hi", "__proto__": {"polluted": true}}',
        ]),
      ),
      callTool(
        'send_message',
        this.pick([
          `{${credential}, "message": "via mcp", "idempotency_key": "${key}"}`,
          `{${credential}}`,
          `{${credential}, "message": "\\ud800"}`,
          '{"message": "no credential"}',
        ]),
      ),
      callTool(
        this.pick(['check_updates', 'read_messages', 'get_conversation']),
        this.pick([
          `{${credential}, "after": 1}`,
          `{${credential}, "after": -1}`,
          `{${credential}, "limit": 1000}`,
          `{"conversation_id": "x", "access_token": "${token}"}`,
          `{${credential.replace(token, this.#theirs.token)}}`,
        ]),
      ),
      callTool(this.pick(['', 'nope', 'constructor', '__proto__', 'toString']), '{}'),
    ];
  }

  /** Spoils one part of a request. */
  #mutate(r: FuzzRequest): void {
    const set = (name: string, value: string | undefined) => {
      if (value === undefined) delete r.headers[name];
      else r.headers[name] = value;
    };
    const mutations = [
      () => (r.method = this.pick(['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])),
      () => (r.path = this.path()),
      () => (r.query = this.query()),
      () => set('authorization', this.authorization()),
      () => set('idempotency-key', this.pick(KEYS)),
      () => set('content-type', this.pick(CONTENT_TYPES)),
      () => (r.body = this.pick(BODIES)),
      () => (r.body = this.pick(BODIES)),
      () => {
        const [name, value] = this.pick([
          ['mcp-protocol-version', this.pick(['2026-07-28', '2025-11-25', '1999-01-01', ''])],
          ['mcp-method', this.pick(['tools/call', 'ping', ''])],
          ['mcp-name', this.pick(['check_updates', '=?base64?Y2hlY2tfdXBkYXRlcw==?=', '=?base64?!!?='])],
          ['origin', this.pick(['http://evil.example', 'null', this.#serviceUrl])],
        ] as const);
        set(name, value);
      },
    ];
    this.pick(mutations)();
  }

  /** A request as raw bytes: what fetch refuses to send (bad bytes, duplicate headers, NUL, huge headers). */
  rawRequest(): { method: string; text: string } {
    const method = this.pick(['GET', 'POST', 'get', 'G\u0000T', 'BREW', 'GET GET']);
    const target = this.pick([
      this.path(),
      `${this.path()}${this.query()}`,
      '/api/v1/health\u0000',
      '/api/v1/directory?q=\u0000',
      '/é',
      '*',
      'http://evil.example/api/v1/health',
      '/api/v1/health#frag',
    ]);
    const headers = [`Host: x`];
    for (const authorization of [this.authorization(), this.authorization()])
      if (authorization) headers.push(`Authorization: ${authorization}`);
    if (this.#random() < 0.3)
      headers.push(`Idempotency-Key: ${this.pick(['a'.repeat(20000), 'k\u00e9y-valid-1', 'dup-key-0001'])}`);
    if (this.#random() < 0.2) headers.push('Content-Type: application/json', 'Content-Type: text/plain');
    const body = this.pick(['', '{"message":"raw"}', '{"message":"\u00ff\u00fe"}']);
    if (this.#random() < 0.5) {
      const length = this.pick([String(Buffer.byteLength(body)), '-1', 'abc', '99999999999', '1, 2']);
      headers.push(`Content-Length: ${length}`);
    }
    return {
      method,
      text: `${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`,
    };
  }
}
