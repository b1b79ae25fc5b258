import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Page } from 'puppeteer-core';
import { addLoginRoles } from '../harness/login-roles.js';
import { launchDashboardBrowser, saveScreenshot, type DashboardBrowser } from '../harness/dashboard-browser.js';
import { startFloe, type FloeServer } from '../harness/floe-server.js';

/**
 * The dashboard in a real browser (headless Debian chromium through puppeteer-core)
 * against a real `floe serve`: what a person sees on each page, with real tables, a
 * stream of commits and optimizing at work; and logging in under --http-auth always.
 * Every page visited is saved as a screenshot (test-artifacts/dashboard/; with
 * FLOE_UPDATE_SCREENSHOTS=1 also docs/screenshots/).
 */
// Functions given to page.evaluate run in the page. The project's types have no DOM (it is Node
// code), so the little of it those functions touch is declared here.
interface PageElement {
  innerText: string;
  textContent: string | null;
  value: string;
  getAttribute(name: string): string | null;
}
declare const document: {
  cookie: string;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
};

let browser: DashboardBrowser;
before(async () => { browser = await launchDashboardBrowser(); });
after(async () => { await browser?.close(); });

const textOf = (page: Page, selector: string) => page.$eval(selector, (el) => (el as unknown as PageElement).innerText);

/**
 * Rows of pixels of one colour on the first canvas inside `selector`. A series of zeros is a
 * flat line a few pixels high; a line that rises and falls with data spans many rows.
 */
function rowsOfColour(page: Page, selector: string, rgb: readonly [number, number, number]): Promise<number> {
  return page.$eval(selector, (el, [r, g, b]) => {
    const canvas = el.querySelector('canvas')!;
    const { data, width } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    const rows = new Set<number>();
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i]! - r!) < 24 && Math.abs(data[i + 1]! - g!) < 24 && Math.abs(data[i + 2]! - b!) < 24 && data[i + 3]! > 200) rows.add(Math.floor(i / 4 / width));
    }
    return rows.size;
  }, rgb);
}

describe('dashboard pages on a gateway at work', () => {
  let server: FloeServer;
  let client: pg.Client;
  let writer: pg.Client;
  let base: string;
  let streaming = true;
  let stream: Promise<void>;

  before(async () => {
    // Rates sampled every second, so the charts have points within the test.
    server = await startFloe({ env: { FLOE_HTTP_RATE_SAMPLE_SECONDS: '1' } });
    base = `http://127.0.0.1:${server.httpPort}`;
    client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database, application_name: 'dashboard-test' });
    writer = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database, application_name: 'stream' });
    await client.connect();
    await writer.connect();
    // A small target size, so optimizing splits the bucket tree's root into children.
    await client.query("CREATE TABLE orders (id bigint PRIMARY KEY, customer text, amount int) WITH ('self-optimizing.target-size' = '16KB')");
    await client.query('CREATE TABLE events (at timestamptz, kind text, payload text)');
    await client.query('CREATE TABLE customers (id int PRIMARY KEY, name text)');
    await client.query("INSERT INTO orders SELECT g, 'customer ' || (g % 37), g % 1000 FROM generate_series(1, 3000) g");
    await client.query("INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(1, 37) g");
    await client.query("INSERT INTO events SELECT now(), 'login', 'x' FROM generate_series(1, 50)");
    // Big enough that a full optimize runs for a while: the pages can see it in flight.
    await client.query('CREATE TABLE readings (id bigint PRIMARY KEY, sensor int, value double precision, note text)');
    await client.query("INSERT INTO readings SELECT g, g % 100, g * 0.5, 'reading number ' || g FROM generate_series(1, 300000) g");
    await client.query("CALL optimize('orders', 'full')");
    await client.query('ALTER TABLE orders CREATE TAG first_load');
    await client.query('ALTER TABLE orders CREATE BRANCH backfill');
    await client.query("INSERT INTO orders$branch_backfill VALUES (900001, 'branch row', 1)");
    // The stream: an upsert every 100 ms until the tests end.
    stream = (async () => {
      for (let i = 0; streaming; i++) {
        await writer.query('INSERT INTO orders VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET customer = EXCLUDED.customer, amount = EXCLUDED.amount', [i % 4000, `stream ${i}`, i]);
        if (i % 5 === 0) await writer.query('INSERT INTO events VALUES (now(), $1, $2)', ['click', String(i)]);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  });
  after(async () => {
    streaming = false;
    await stream?.catch(() => undefined);
    await writer?.end().catch(() => undefined);
    await client?.end().catch(() => undefined);
    await server?.stop();
  });

  test('overview: the table list, the least healthy, and rate charts drawn from data', async () => {
    const { page, errors } = await browser.open();
    await page.goto(`${base}/`);
    await page.waitForSelector('tr[data-table="public.orders"]');
    const tables = await textOf(page, 'table.tables');
    for (const name of ['public.orders', 'public.events', 'public.customers', 'public.readings']) assert.match(tables, new RegExp(name.replace('.', '\\.')));
    const ordersRow = await textOf(page, 'tr[data-table="public.orders"]');
    assert.match(ordersRow, /\d[\d,]* \+ \d/, 'files of both stores');
    assert.equal(await page.$$eval('ol.least-healthy li', (li) => li.length), 4);
    // Points arrive each second; the ingest line is drawn in its colour on the canvas.
    await page.waitForFunction(() => Number(document.querySelector('.rate-chart')?.getAttribute('data-points')) >= 3, { timeout: 20_000 });
    await page.waitForFunction(() => document.querySelector('.rate-chart canvas') !== null);
    await new Promise((r) => setTimeout(r, 5500)); // one more poll, so the stream's commits are in the drawn points
    assert.ok(await rowsOfColour(page, '.rate-chart', [0x2a, 0x7a, 0xb0]) > 20, 'the ingest chart draws a line that rises with the rows written');
    // The control: no statement failed, so the errors line (red, on the queries chart) stays flat.
    const flat = await rowsOfColour(page, '.charts figure:nth-of-type(2) .rate-chart', [0xc0, 0x39, 0x2b]);
    assert.ok(flat > 0 && flat <= 8, `the errors line is drawn flat: ${flat} rows`);
    const rates = await (await fetch(`${base}/api/v1/rates`)).json() as { points: { ingestRowsPerSecond: number }[] };
    assert.ok(rates.points.some((p) => p.ingestRowsPerSecond > 0), 'the stream shows in the rates');
    await saveScreenshot(page, 'overview');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('table page: schema, snapshot timeline with branch and tag, histogram, bucket tree, audit log; the history row appears after CALL optimize', async () => {
    const { page, errors } = await browser.open();
    await page.goto(`${base}/#/tables/public/orders`);
    await page.waitForSelector('table.schema');
    assert.deepEqual(await page.$$eval('table.schema tbody tr td:first-child', (td) => td.map((t) => (t as unknown as PageElement).innerText.trim())), ['id key', 'customer', 'amount']);
    assert.match(await textOf(page, 'table.properties'), /self-optimizing\.target-size\s+16KB/);
    const timeline = await textOf(page, '.timeline-box');
    assert.match(timeline, /first_load/);
    assert.match(timeline, /backfill/);
    assert.ok(await page.$$eval('svg.snapshot-timeline circle.snapshot', (c) => c.length) >= 3);
    assert.ok(await page.$$eval('svg.size-histogram rect.bar', (r) => r.filter((x) => Number(x.getAttribute('height')) > 0).length) >= 1);
    // The tree: the API's nodes, drawn, the split root with children below it.
    const api = await (await fetch(`${base}/api/v1/tables/public/orders`)).json() as { buckets: { node: string }[] };
    // The optimizer may split a node between the page's last poll and this fetch: the next poll draws it.
    await page.waitForFunction((nodes: string[]) => {
      const drawnNow = [...document.querySelectorAll('svg.bucket-tree g.bucket-node')].map((n) => n.getAttribute('data-node'));
      return nodes.every((n) => drawnNow.includes(n));
    }, { timeout: 15_000 }, api.buckets.map((b) => b.node));
    const drawn = await page.$$eval('svg.bucket-tree g.bucket-node', (g) => g.map((n) => n.getAttribute('data-node')));
    assert.ok(drawn.length >= 3, `the root split: ${drawn.join(' ')}`);
    assert.ok(await page.$$eval('svg.bucket-tree line.edge', (l) => l.length) >= 2);
    await page.waitForFunction(() => document.querySelectorAll('table.changes tbody tr').length > 0);
    // The stream's upserts of existing keys, newest first.
    assert.match(await textOf(page, 'table.changes tbody tr:first-child'), /^UPDATE_AFTER\s+\d+\s+\d+\s+\d+\s+stream \d+/);
    assert.match(await textOf(page, '.ra'), /target of 16/);

    const callRuns = () => page.$$eval('table.history tr.run', (rows) => rows.filter((r) => (r as unknown as PageElement).innerText.includes('call')).length);
    const before = await callRuns();
    const deadline = Date.now() + 30_000;
    while (Number((await client.query("CALL optimize('orders', 'minor')")).rows[0].files_in) === 0) {
      assert.ok(Date.now() < deadline, 'CALL optimize folded nothing within 30 s');
      await new Promise((r) => setTimeout(r, 300));
    }
    await page.waitForFunction((n) => [...document.querySelectorAll('table.history tr.run')].filter((r) => (r as unknown as PageElement).innerText.includes('call')).length > n, { timeout: 15_000 }, before);
    const runs = await page.$$eval('table.history tr.run', (rows) => rows.map((r) => (r as unknown as PageElement).innerText));
    assert.ok(runs.some((r) => /minor\s+call\s+success\s+\S+ m?s\s+\d+ → \d+/.test(r)), runs.join('\n'));
    await saveScreenshot(page, 'table');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('optimizing: an optimize in flight, groups, tables with their actions, optimizers with heartbeats, history', async () => {
    const { page, errors } = await browser.open();
    const runner = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database });
    await runner.connect();
    let ended = false;
    const call = runner.query("CALL optimize('readings', 'full')").finally(() => { ended = true; });
    let seen = '';
    while (!ended && seen === '') {
      await page.goto(`${base}/#/optimizing`);
      await page.waitForSelector('table.groups');
      const running = await page.$$eval('ul.running li', (li) => li.map((l) => (l as unknown as PageElement).innerText));
      seen = running.find((r) => r.startsWith('public.readings')) ?? '';
    }
    assert.match(seen, /^public\.readings (pending|planning|executing|committing) in default$/, 'the page showed the optimize while it ran');
    await saveScreenshot(page, 'optimizing');
    await call;
    await runner.end();
    await page.goto(`${base}/#/optimizing`);
    await page.waitForSelector('table.groups');
    assert.match(await textOf(page, 'table.groups tbody'), /^default\s+\d+/);
    assert.match(await textOf(page, 'tr[data-table="public.orders"]'), /Pause\s+Optimize now/);
    assert.match(await textOf(page, 'table.optimizers'), /ago/);
    assert.ok(await page.$$eval('table.history tr.run', (r) => r.length) >= 2);
    // Pausing from the page reaches the table, as floe_optimizing shows.
    await page.click('tr[data-table="public.customers"] button.admin');
    await page.waitForFunction(() => (document.querySelector('tr[data-table="public.customers"]') as unknown as PageElement | null)?.innerText.includes('paused'), { timeout: 10_000 });
    assert.equal((await client.query("SELECT enabled FROM floe_optimizing WHERE table_name = 'customers'")).rows[0].enabled, false);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('sessions: who is connected, the longest-running statement, and cancelling it', async () => {
    const sleeper = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database, application_name: 'report' });
    await sleeper.connect();
    const outcome = sleeper.query('SELECT pg_sleep(60)').then(() => 'finished', (e: { code?: string }) => e.code);
    const { page, errors } = await browser.open();
    try {
      await page.goto(`${base}/#/sessions`);
      await page.waitForFunction(() => document.querySelector('table.longest')?.textContent?.includes('pg_sleep'), { timeout: 10_000 });
      // The slow-query list: the stream's upsert, folded to one row with its constants as $n.
      await page.waitForFunction(() => /INSERT INTO .*\$1/i.test(document.querySelector('table.slowest')?.textContent ?? ''), { timeout: 10_000 });
      const list = await textOf(page, 'table.sessions-list');
      for (const app of ['dashboard-test', 'stream', 'report']) assert.match(list, new RegExp(app));
      await saveScreenshot(page, 'sessions');
      const pid = (sleeper as unknown as { processID: number }).processID;
      await page.click(`tr[data-pid="${pid}"] button.admin`);
      assert.equal(await outcome, '57014', 'the statement was cancelled');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await sleeper.end();
    }
  });
});

describe('dashboard login under --http-auth always', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-dash-auth-'));
  let server: FloeServer;
  let base: string;

  before(async () => {
    server = await startFloe({ dataDir, args: ['--http-auth', 'always'] });
    await addLoginRoles(server, [{ name: 'alice', password: 'alice-pw' }]);
    base = `http://127.0.0.1:${server.httpPort}`;
    const client = new pg.Client({ host: server.host, port: server.port, user: 'floe', database: 'floe' });
    await client.connect();
    await client.query('CREATE TABLE t (id int PRIMARY KEY)');
    await client.end();
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the login form: a wrong password is shown, the right one opens the dashboard with an HttpOnly SameSite=Strict cookie; admin actions show 403', async () => {
    const { page, errors } = await browser.open();
    await page.goto(`${base}/`);
    await page.waitForSelector('form.login');
    await saveScreenshot(page, 'login');
    await page.type('input[name=user]', 'alice');
    await page.type('input[name=password]', 'wrong');
    await page.click('form.login button[type=submit]');
    await page.waitForSelector('form.login .error');
    assert.match(await textOf(page, 'form.login .error'), /401 · SQLSTATE 28P01: password authentication failed for user "alice"/);

    await page.$eval('input[name=password]', (i) => { (i as unknown as PageElement).value = ''; });
    await page.type('input[name=password]', 'alice-pw');
    await page.click('form.login button[type=submit]');
    await page.waitForSelector('tr[data-table="public.t"]');
    assert.match(await textOf(page, 'header .who'), /^alice Log out/);
    const cookie = (await page.cookies()).find((c) => c.name === 'floe_session');
    assert.ok(cookie !== undefined && cookie.value.length >= 40);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read the session cookie');

    // Alice is not a superuser: the server refuses, and the page says so.
    await page.goto(`${base}/#/optimizing`);
    await page.waitForSelector('tr[data-table="public.t"] button.admin');
    await page.click('tr[data-table="public.t"] button.admin');
    await page.waitForSelector('tr[data-table="public.t"] .error');
    assert.match(await textOf(page, 'tr[data-table="public.t"] .error'), /403 · SQLSTATE 42501: permission denied to pause optimizing/);

    await page.click('header .who button');
    await page.waitForSelector('form.login');
    const after = await fetch(`${base}/api/v1/whoami`, { headers: { cookie: `floe_session=${cookie.value}` } });
    assert.equal(after.status, 401, 'the session ended at logout');
    // What a browser logs for the refusals the test asked for (401, 403) is expected; nothing else is.
    assert.deepEqual(errors.filter((e) => !/Failed to load resource: the server responded with a status of 40[13]/.test(e)), []);
    await page.close();
  });
});
