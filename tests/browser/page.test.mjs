// The demo page end to end in headless Chromium: the default pack on first
// visit, search with live threshold filtering, storing a knowledge base with
// a model, the embedding comparison, export/import, delete, and persistence
// across reloads and browser restarts. Screenshots go to build/test-artifacts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, artifacts, launch, site, startServer, urlOf, watchConsole } from './helpers.mjs';

let lexical, modelServer, modelConfig;

before(async () => {
  lexical = await startServer();
  const config = JSON.parse(readFileSync(join(site(), 'config.json'), 'utf8'));
  modelConfig = join(mkdtempSync(join(tmpdir(), 'vesper-config-')), 'config.json');
  writeFileSync(modelConfig, JSON.stringify({ ...config, model: 'models/test/static-tiny/', defaultPack: null }));
  modelServer = await startServer(0, [['/config.json', modelConfig]]);
});
after(() => {
  lexical?.close();
  modelServer?.close();
});

async function ready(page) {
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
}

async function resultCount(page) {
  return page.$$eval('#results li:not(.hint)', (l) => l.length);
}

test('first visit: the default pack is loaded and searchable; the threshold filters live', { timeout: 120_000 }, async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  const errors = watchConsole(page);
  await page.goto(urlOf(lexical, '/'));
  await page.screenshot({ path: join(artifacts, 'page-loading.png') });
  await ready(page);
  assert.match(await page.textContent('#status-text'), /Ready/);
  assert.match(await page.textContent('#notice'), /lexical only/);
  assert.deepEqual(await page.$$eval('#db-select option', (o) => o.map((x) => x.value)), ['karpathy']);
  await page.fill('#query', 'HydraNet backbone heads Tesla');
  await page.waitForFunction(() => document.querySelectorAll('#results li:not(.hint)').length > 0);
  const all = await resultCount(page);
  assert.ok((await page.textContent('#results')).includes('HydraNet'));
  assert.ok((await page.$$eval('#results mark', (m) => m.length)) > 0, 'matching terms are highlighted');
  assert.match(await page.textContent('#timings'), /tokenize .* ms · embed .* ms · search .* ms/);
  await page.screenshot({ path: join(artifacts, 'page-search-lexical.png'), fullPage: true });
  await page.$eval('#threshold', (el) => {
    el.value = '0.3';
    el.dispatchEvent(new Event('input'));
  });
  const fewer = await resultCount(page);
  assert.ok(fewer < all, `threshold 0.3 kept ${fewer} of ${all}`);
  const scores = await page.$$eval('#results .meta strong', (s) => s.map((x) => Number(x.textContent)));
  assert.ok(scores.every((s) => s >= 0.3));
  assert.deepEqual(errors, []);
  await browser.close();
});

test('with a model: store with progress, embedding comparison, export, import, delete, persistence', { timeout: 240_000 }, async () => {
  const profile = mkdtempSync(join(tmpdir(), 'vesper-profile-'));
  const port = modelServer.address().port;
  const open = async () => {
    const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, viewport: { width: 1200, height: 1600 }, acceptDownloads: true });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${port}/`);
    await ready(page);
    return { context, page };
  };
  let { context, page } = await open();
  const errors = watchConsole(page);
  assert.match(await page.textContent('#status-text'), /Ready: static-tiny on vesper-core/);
  await page.fill('#db-name', 'notes');
  await page.click('#store');
  await page.waitForFunction(() => /Stored \d+ passages in 'notes'/.test(document.getElementById('store-status').textContent), null, { timeout: 120_000 });
  assert.match(await page.textContent('#db-table'), /notes.*static-tiny/s);

  await page.selectOption('#db-select', 'notes');
  await page.fill('#query', 'Why did Tesla bet on cameras?');
  await page.waitForFunction(() => document.getElementById('best-score').textContent !== '–');
  assert.equal(await page.getAttribute('#query-strip', 'data-dims'), '32');
  assert.equal(await page.getAttribute('#match-strip', 'data-dims'), '32');
  assert.ok((await page.$$eval('#pieces span', (s) => s.length)) > 3);
  assert.match(await page.textContent('#token-ids'), /^\[(\d+, ){63}\d+\]$/, '64 padded ids');
  const best = Number(await page.textContent('#best-score'));
  assert.ok(best > 0 && best <= 1);
  await page.screenshot({ path: join(artifacts, 'page-search-embedding.png'), fullPage: true });

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="notes"]')]);
  const packPath = join(profile, 'notes.pack');
  await download.saveAs(packPath);
  assert.equal(readFileSync(packPath).subarray(0, 8).toString(), 'VESPERPK');

  await page.click('button[data-delete="notes"]');
  assert.doesNotMatch(await page.textContent('#db-table'), /notes/);
  await page.setInputFiles('#import-file', packPath);
  await page.waitForFunction(() => /Imported notes/.test(document.getElementById('store-status').textContent));
  assert.match(await page.textContent('#db-table'), /notes/);

  await page.reload();
  await ready(page);
  assert.match(await page.textContent('#db-table'), /notes/, 'kept across a reload');
  await page.screenshot({ path: join(artifacts, 'page-databases.png') });
  await context.close();

  ({ context, page } = await open());
  assert.match(await page.textContent('#db-table'), /notes/, 'kept across a browser restart');
  await context.close();
  assert.deepEqual(errors, []);
});
