// A minimal Chrome DevTools Protocol client for the browser test: Debian's headless
// Chromium, driven over Node's built-in WebSocket. No browser library is needed.

import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tempDir, type Cleanup } from '../../helpers.ts';

const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

/** The Chromium executable, or undefined when none is installed. */
export function findChromium(): string | undefined {
  return CANDIDATES.find((candidate): candidate is string => !!candidate && existsSync(candidate));
}

export interface Page {
  goto(url: string): Promise<void>;
  /** Evaluates an expression in the page and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Evaluates an expression that navigates (a click, a form submit) and waits for the new page. */
  navigateBy(expression: string): Promise<void>;
  setViewport(width: number, height: number, mobile: boolean): Promise<void>;
  /** The whole page, or only its top-left `clip` (the README's picture). */
  screenshot(file: string, clip?: { width: number; height: number }): Promise<void>;
}

/** Starts headless Chromium with a fresh profile, killed at cleanup; returns its DevTools endpoint. */
async function launchChromium(t: Cleanup, executable: string): Promise<string> {
  const profile = tempDir(t);
  // The flags keep Chromium off the network: this machine refuses everything but loopback.
  const child = spawn(
    executable,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      '--hide-scrollbars', // pictures of pages, not of windows
      `--user-data-dir=${profile}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  t.after(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`chromium exited with ${code}: ${stderr.slice(-500)}`)));
  });
}

/** A DevTools connection, closed when the test ends: commands with their answers, and the events. */
async function connect(t: Cleanup, endpoint: string) {
  const socket = new WebSocket(endpoint);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  t.after(() => socket.close());
  let nextId = 1;
  const pending = new Map<number, { resolve: (value: any) => void; reject: (err: Error) => void }>();
  const listeners = new Set<(method: string, params: any) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    if (message.id !== undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(`${message.error.message} (${message.error.code})`));
      else waiter?.resolve(message.result);
    } else {
      for (const listener of listeners) listener(message.method, message.params);
    }
  });
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params, sessionId }));
    });
  return { send, listeners };
}

/** Starts headless Chromium with a fresh profile and opens one page; closed when the test ends. */
export async function openPage(t: Cleanup, executable: string): Promise<Page> {
  const { send, listeners } = await connect(t, await launchChromium(t, executable));
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const command = (method: string, params: object = {}) => send(method, params, sessionId);
  await command('Page.enable');

  const nextLoad = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the page did not load within 10 s')), 10_000);
      const listener = (method: string) => {
        if (method !== 'Page.loadEventFired') return;
        clearTimeout(timer);
        listeners.delete(listener);
        resolve();
      };
      listeners.add(listener);
    });

  const evaluate = async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = await command('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    if (exceptionDetails)
      throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  };

  return {
    async goto(url) {
      const loaded = nextLoad();
      await command('Page.navigate', { url });
      await loaded;
    },
    evaluate,
    async navigateBy(expression) {
      const loaded = nextLoad();
      await evaluate(`void (${expression})`);
      await loaded;
    },
    async setViewport(width, height, mobile) {
      await command('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile });
    },
    async screenshot(file, clip) {
      const region = clip && { clip: { x: 0, y: 0, ...clip, scale: 1 } };
      const options = { format: 'png', captureBeyondViewport: !clip, ...region };
      const { data } = await command('Page.captureScreenshot', options);
      writeFileSync(file, Buffer.from(data, 'base64'));
    },
  };
}
