// NOTIFY_COMMAND: tells the owner about each new client message by running a program
// (no shell) with the details in its environment and the message text on stdin. It
// never delays or fails the client's request; its failures are only logged.

import { spawn } from 'node:child_process';
import type { Log } from './app.ts';

export interface NewClientMessage {
  readonly conversationId: string;
  readonly seq: number;
  readonly agentName: string;
  readonly message: string;
}

const NOTIFY_TIMEOUT_MS = 30_000; // a hung notifier is killed rather than piling up

export function createNotifier(command: readonly string[] | null, log: Log) {
  return (event: NewClientMessage): void => {
    if (!command) return;
    const [program, ...args] = command as [string, ...string[]];
    let reported = false; // 'exit' may follow 'error': log the failure once
    const failed = (reason: string) => {
      if (reported) return;
      reported = true;
      log({ time: new Date().toISOString(), level: 'error', notify: 'failed', conversation_id: event.conversationId, seq: event.seq, reason });
    };
    let child;
    try {
      child = spawn(program, args, {
        env: {
          ...process.env,
          CONVERSATION_ID: event.conversationId,
          MESSAGE_SEQ: String(event.seq),
          AGENT_NAME: event.agentName,
        },
        stdio: ['pipe', 'ignore', 'ignore'],
        timeout: NOTIFY_TIMEOUT_MS,
      });
    } catch (err) {
      failed((err as Error).message);
      return;
    }
    child.on('error', (err) => failed(err.message));
    child.on('exit', (code, signal) => {
      if (code !== 0) failed(signal ? `killed by ${signal}` : `exited with status ${code}`);
    });
    child.stdin.on('error', () => {}); // a notifier that ignores stdin closes the pipe early
    child.stdin.end(event.message);
  };
}
