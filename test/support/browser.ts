import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** Debian's chromium, which `.ci/run` installs with apt-get; playwright-core drives it, no browser download. */
export const CHROMIUM = '/usr/bin/chromium';

/** Why browser tests are skipped here, or undefined when they can run. */
export const NO_BROWSER: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `no chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;

/** Launches headless chromium; as root (CI, containers) without its sandbox, which refuses to run as root. */
export function launchBrowser(): Promise<Browser> {
  const root = process.getuid?.() === 0;
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: root ? ['--no-sandbox'] : [],
  });
}

/**
 * One Chromium for the tests of the describe it is called in: launched before them, closed after. The hooks get a
 * bound of their own (a describe's `timeout` covers its tests only), as Chromium under load takes more than 20 s.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  }, 60_000);
  return () => browser as Browser;
}

/** What a page did that a self-contained, error-free page never does. */
export interface PageFaults {
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Every request other than the page's own URL (and data: URLs). */
  requests: string[];
}

/**
 * Opens a page that records console errors, uncaught exceptions and every request it makes; requests to anything
 * but `allowed` (the page's own address, or its event stream) are recorded and aborted, so a page that reaches for
 * the network fails its test instead of fetching.
 */
export async function openWatchedPage(
  browser: Browser,
  allowed: (url: string) => boolean = () => false,
): Promise<{ page: Page; faults: PageFaults }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const faults: PageFaults = { errors: [], requests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') faults.errors.push(message.text());
  });
  page.on('pageerror', (error) => faults.errors.push(error.message));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || allowed(url)) return route.continue();
    faults.requests.push(url);
    return route.abort();
  });
  return { page, faults };
}
