// `npm run screenshot`: takes docs/screenshot.png, the README's picture of the directory page, again:
// the page as this code serves it with the shipped listings, at the README's address, in the same
// headless Chromium the browser test drives (browser.ts; CHROMIUM_PATH names another). Run it after
// a change to the page; the browser test runs it too, so the command keeps working.

import path from 'node:path';
import { loadConfig } from '../../../src/base/config.ts';
import { startService } from '../../../src/service/service.ts';
import { ROOT, tempDir, type Cleanup } from '../../helpers.ts';
import { findChromium, openPage } from './browser.ts';

export const SCREENSHOT = path.join(ROOT, 'docs/screenshot.png');
/** The picture's size: the top of the page on a laptop, as the README shows it. */
export const SCREENSHOT_SIZE = { width: 948, height: 1000 };

/** Serves the page on a fresh database and writes its picture to `file`; undone at cleanup. */
export async function takeScreenshot(file: string, cleanup: Cleanup, chromium: string): Promise<void> {
  const config = loadConfig({
    PORT: '0',
    DB_PATH: path.join(tempDir(cleanup), 'service.db'),
    LISTINGS_PATH: path.join(ROOT, 'data/listings.json'),
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080', // what the README opens; the page names no random port
  });
  const service = await startService(config, { log: () => {} });
  cleanup.after(() => service.close());
  const page = await openPage(cleanup, chromium);
  await page.setViewport(SCREENSHOT_SIZE.width, SCREENSHOT_SIZE.height, false);
  await page.goto(`${service.url}/`);
  await page.screenshot(file, SCREENSHOT_SIZE);
}

if (import.meta.main) {
  const chromium = findChromium();
  if (chromium === undefined) {
    console.error('No Chromium found: apt-get install chromium, or set CHROMIUM_PATH');
    process.exit(1);
  }
  const undo: (() => unknown)[] = [];
  try {
    await takeScreenshot(SCREENSHOT, { after: (fn) => undo.push(fn) }, chromium);
    console.log(`Wrote ${path.relative(ROOT, SCREENSHOT)}`);
  } finally {
    for (const fn of undo.reverse()) await fn();
  }
}
