import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { REPO_ROOT } from './floe-server.js';

/** Debian's chromium; the tests never download a browser. */
const CHROMIUM = process.env.FLOE_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots of every page a test visits (git-ignored): CI keeps them as artifacts. */
export const ARTIFACT_DIR = join(REPO_ROOT, 'test-artifacts', 'dashboard');
/** The screenshots README.md and docs/ show, rewritten only when FLOE_UPDATE_SCREENSHOTS=1. */
const DOCS_DIR = join(REPO_ROOT, 'docs', 'screenshots');

export interface DashboardBrowser {
  /** A new tab with its console errors and uncaught exceptions collected. */
  open(): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

/**
 * Headless Chromium for the dashboard tests. The flags keep it off the network (the
 * test machines have none: without them it retries refused connections for updates,
 * sync and QUIC) and away from the user's profile.
 */
export async function launchDashboardBrowser(): Promise<DashboardBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'floe-chromium-'));
  const browser: Browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    defaultViewport: { width: 1280, height: 900 },
  });
  return {
    async open() {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url ?? ''})`); });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e instanceof Error ? e.message : String(e)}`));
      return { page, errors };
    },
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as a test artifact, and for the docs when asked to. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACT_DIR, { recursive: true });
  const png = await page.screenshot({ fullPage: true, type: 'png' });
  writeFileSync(join(ARTIFACT_DIR, `${name}.png`), png);
  if (process.env.FLOE_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOCS_DIR, { recursive: true });
    writeFileSync(join(DOCS_DIR, `${name}.png`), png);
  }
}
