import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

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
