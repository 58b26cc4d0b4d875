// What the walk of the catalogue runs on (test/refusals/vocabulary.test.ts): services started for a
// case, conversations opened through any door, and the cases' shape.

import type { TestContext } from 'node:test';
import { newKey, openConversation, runOwner, startTestService, type TestService } from '../helpers.ts';
import type { Door } from './doors.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from '../identity/agents.ts';

/** One reason triggered on one door: `run` answers with the reason the door gave. */
export interface Case {
  readonly reason: string;
  readonly door: Door;
  run(walk: Walk): Promise<string | undefined>;
}

const KEY = agentKey();

/** What a case may use: services (started for it and stopped after), conversations, signatures, the owner. */
export class Walk {
  readonly #t: TestContext;
  constructor(t: TestContext) {
    this.#t = t;
  }

  /** A service with the test defaults (no request or opening limit), `env` on top. */
  start(env: Record<string, string> = {}, options: Parameters<typeof startTestService>[1] = {}): Promise<TestService> {
    return startTestService(this.#t, { ...options, env });
  }

  /** A service that reads key directories on the test hosts, and a signer whose directory it can read. */
  async signing(env: Record<string, string> = {}): Promise<{ service: TestService; signer: Signing }> {
    const directory = await startKeyDirectory(this.#t, [KEY]);
    const service = await startVerifyingService(this.#t, { env });
    return { service, signer: { key: KEY, agent: directory.origin } };
  }

  /** Headers signing `method path` for `service`. */
  signed(service: TestService, method: string, path: string, signer: Signing): Promise<Record<string, string>> {
    return signedHeaders(service, method, path, signer);
  }

  /** A conversation opened over REST: its id and credential. */
  open(service: TestService): Promise<{ id: string; token: string }> {
    return openConversation(service.url, { message: 'Hello.' });
  }

  /** The owner script on the service's database; throws when it fails. */
  async owner(service: TestService, ...args: string[]): Promise<void> {
    const ran = await runOwner(service.dbPath, args);
    if (ran.code !== 0) throw new Error(`${args.join(' ')}: ${ran.stderr}`);
  }

  key(): string {
    return newKey();
  }
}
