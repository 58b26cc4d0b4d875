// The web page in a real headless Chromium: it loads, search and filters work, a listing
// page opens, it fits a phone, and screenshots are left for a person to look at.
// Covers: src/doors/web/pages.ts, src/doors/web/listing-page.ts, src/directory/snapshot.ts.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { findChromium, openPage, type Page } from './browser.ts';
import { SCREENSHOT, SCREENSHOT_SIZE, takeScreenshot } from './screenshot.ts';
import { SERVER_TIMEOUTS } from '../../../src/http/server.ts';
import { ROOT, startTestService, tempDir } from '../../helpers.ts';

const chromium = findChromium();
// Outside the repository, kept after the run on purpose: these are for a person to open.
const SCREENSHOTS = path.join(tmpdir(), 'agent-contact-service-screenshots');

/** Searches for "weather" through the form: every result mentions it. */
async function searchForWeather(page: Page) {
  await page.navigateBy(
    `(() => { document.querySelector('#q').value = 'weather'; ` +
      `document.querySelector('form[role=search]').requestSubmit(); })()`,
  );
  assert.match(await page.evaluate<string>('location.search'), /q=weather/);
  const found = await page.evaluate<string[]>(
    '[...document.querySelectorAll("ol.listings article")].map((a) => a.textContent.toLowerCase())',
  );
  assert.ok(found.length >= 2, `${found.length} results for weather`);
  assert.ok(found.every((text) => text.includes('weather')));
}

/** Filters by a category through the form, then by kind through the tabs. */
async function filterByCategoryAndKind(page: Page) {
  await page.navigateBy(
    `(() => { document.querySelector('#category').value = 'research'; ` +
      `document.querySelector('form[role=search]').requestSubmit(); })()`,
  );
  const categories = await page.evaluate<string[]>(
    '[...document.querySelectorAll("ol.listings .meta")].map((m) => m.textContent)',
  );
  assert.ok(categories.length >= 3);
  assert.ok(
    categories.every((meta) => meta.includes('· research ·')),
    categories.join(' / '),
  );
  assert.equal(
    await page.evaluate('document.querySelector("#category").value'),
    'research',
    'the filter stays selected',
  );

  await page.navigateBy('document.querySelector(\'.tabs a[href="/?kind=tool"]\').click()');
  const kinds = await page.evaluate<string[]>(
    '[...document.querySelectorAll("ol.listings .meta")].map((m) => m.textContent)',
  );
  assert.ok(kinds.length > 0 && kinds.every((meta) => meta.startsWith('Tool ·')));
  assert.equal(await page.evaluate('document.querySelector(\'.tabs [aria-current="page"]\').textContent'), 'Tools');
}

/** On a 390 px phone, the home page, a filtered page and every listing page fit without sideways scrolling. */
async function assertEveryPageFitsAPhone(page: Page, serviceUrl: string) {
  await page.setViewport(390, 844, true);
  const slugs = (
    (await (await fetch(`${serviceUrl}/api/v1/directory?limit=100`)).json()) as { items: { slug: string }[] }
  ).items.map((item) => item.slug);
  const wide: string[] = [];
  for (const path of ['/', '/?category=robots', ...slugs.map((slug) => `/listings/${slug}`)]) {
    await page.goto(`${serviceUrl}${path}`);
    // clientWidth, not innerWidth: a phone widens its layout viewport to fit a page that overflows.
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    if (overflow > 0) wide.push(`${path} (${overflow}px)`);
  }
  assert.deepEqual(wide, [], 'every page fits a 390 px phone without sideways scrolling');
  assert.ok(slugs.length >= 40, `${slugs.length} listing pages checked`);
}

test(
  'the directory page works in a real browser',
  { skip: !chromium && 'Chromium is not installed (apt-get install chromium); .ci/run installs it', timeout: 60_000 },
  async (t) => {
    const service = await startTestService(t, {
      env: { LISTINGS_PATH: path.join(ROOT, 'data/listings.json') },
      timeouts: { ...SERVER_TIMEOUTS, shutdownGrace: 500 },
    });
    const page = await openPage(t, chromium as string);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.setViewport(1200, 900, false);

    await page.goto(`${service.url}/`);
    assert.equal(await page.evaluate('document.title'), 'Directory of communities and tools for AI agents');
    assert.equal(await page.evaluate('document.querySelectorAll("ol.listings > li").length'), 20);
    assert.equal(
      await page.evaluate('document.querySelector("#contact-title").textContent'),
      'How to contact the owner',
    );
    await page.screenshot(path.join(SCREENSHOTS, 'home.png'));

    await searchForWeather(page);
    await page.goto(`${service.url}/`);
    await filterByCategoryAndKind(page);

    await page.navigateBy('document.querySelector(".pages a[rel=next]").click()');
    assert.match(await page.evaluate<string>('location.search'), /offset=20/);

    await page.navigateBy('document.querySelector("ol.listings h2 a").click()');
    assert.match(await page.evaluate<string>('location.pathname'), /^\/listings\/[a-z0-9-]+$/);
    assert.equal(await page.evaluate('document.querySelector("h2").textContent'), 'How to take part');
    assert.ok((await page.evaluate<number>('document.querySelectorAll("dl dt").length')) >= 3);
    await page.screenshot(path.join(SCREENSHOTS, 'listing.png'));

    // The stylesheet applies under the pages' Content-Security-Policy (it allows exactly that one).
    assert.equal(await page.evaluate('getComputedStyle(document.body).maxWidth'), '800px');

    await assertEveryPageFitsAPhone(page, service.url);
    await page.goto(`${service.url}/listings/open-meteo`);
    await page.screenshot(path.join(SCREENSHOTS, 'listing-phone.png'));
    await page.goto(`${service.url}/`);
    await page.screenshot(path.join(SCREENSHOTS, 'home-phone.png'));
    t.diagnostic(`screenshots: ${SCREENSHOTS}/home.png, listing.png, home-phone.png, listing-phone.png`);

    // A browser keeps connections open; shutdown must not wait for it to let go.
    const closing = Date.now();
    await service.close();
    assert.ok(Date.now() - closing < 3000, `shutdown took ${Date.now() - closing} ms with a browser connected`);
  },
);

/** A PNG's width and height, from its header. */
const sizeOf = (png: Buffer) => ({
  png: png.subarray(1, 4).toString(),
  width: png.readUInt32BE(16),
  height: png.readUInt32BE(20),
});

test(
  "npm run screenshot takes the README's picture of the page again, at its size",
  { skip: !chromium && 'Chromium is not installed (apt-get install chromium); .ci/run installs it', timeout: 60_000 },
  async (t) => {
    const file = path.join(tempDir(t), 'screenshot.png');
    await takeScreenshot(file, t, chromium as string);
    const expected = { png: 'PNG', ...SCREENSHOT_SIZE };
    assert.deepEqual(sizeOf(readFileSync(file)), expected);
    assert.deepEqual(sizeOf(readFileSync(SCREENSHOT)), expected, 'the README shows one taken so');
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(scripts.screenshot, 'node test/doors/web/screenshot.ts');
    assert.match(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), /`npm run screenshot`/, 'the README names it');
  },
);
