// The embeddable <vesper-search> element on the example static page.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { artifacts, launch, startServer, urlOf, watchConsole } from './helpers.mjs';

let server, browser;
before(async () => {
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

// The example page with its element ready; `results` is a promise of the
// next search's result count (wrapped, so that awaiting this does not wait for it).
async function openExample(page) {
  await page.goto(urlOf(server, '/example/'));
  await page.evaluate(() => new Promise((resolve) => {
    const el = document.querySelector('vesper-search');
    if (!el.shadowRoot.querySelector('input').disabled) resolve();
    el.addEventListener('vesper-ready', resolve, { once: true });
  }));
  const results = page.evaluate(() => new Promise((resolve) =>
    document.querySelector('vesper-search').addEventListener('vesper-results', (e) => resolve(e.detail.results.length), { once: true })));
  return { results };
}

test('<vesper-search> loads a pack and answers as the user types', { timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  const errors = watchConsole(page);
  const { results } = await openExample(page);
  await page.locator('vesper-search input').fill('micrograd backpropagation');
  assert.ok((await results) > 0);
  const items = await page.locator('vesper-search li').allTextContents();
  assert.ok(items.length > 0 && items.length <= 5);
  assert.match(items.join(' '), /micrograd|backprop/i);
  await page.screenshot({ path: join(artifacts, 'component-example.png') });
  assert.deepEqual(errors, []);
  // The example loads the element as its one bundle (tools/site.mjs), not its modules one import level at a time.
  const modules = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname).filter((p) => p.endsWith('.mjs')));
  assert.ok(modules.includes('/vesper-search.bundle.mjs'), modules.join(' '));
  assert.deepEqual(modules.filter((p) => /\/engine\/|\/vesper-(engine|search)\.mjs$/.test(p)), []);
});

test('<vesper-search> says when nothing answers and lists the nearest passages greyed', { timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  const errors = watchConsole(page);
  const { results } = await openExample(page);
  // This pack is searched by its words (no model attribute): a question that
  // shares a few of them is not answered, and its nearest passages are listed.
  await page.locator('vesper-search input').fill('Which sourdough starter and flour should I use to bake bread at home?');
  assert.equal(await results, 0);
  assert.match(await page.locator('vesper-search .status').textContent(), /Nothing here seems to answer that/);
  const near = await page.locator('vesper-search li[part="near-miss"]').count();
  assert.ok(near > 0 && near <= 3, `${near} near misses`);
  // One that shares none but function words ("how do I ... at") has no nearest passage to list.
  const none = page.evaluate(() => new Promise((resolve) => {
    document.querySelector('vesper-search').addEventListener('vesper-results', (e) => resolve(e.detail), { once: true });
  }));
  await page.locator('vesper-search input').fill('How do I bake sourdough bread at home?');
  await none;
  assert.equal(await page.locator('vesper-search .status').textContent(), 'Nothing here seems to answer that.');
  assert.equal(await page.locator('vesper-search li[part="near-miss"]').count(), 0);
  assert.deepEqual(errors, []);
});

test('<vesper-search> reports a missing pack as an error event', { timeout: 60_000 }, async () => {
  const page = await browser.newPage();
  await page.goto(urlOf(server, '/example/'));
  const message = await page.evaluate(() => new Promise((resolve) => {
    const el = document.createElement('vesper-search');
    el.addEventListener('vesper-error', (e) => resolve(e.detail.message), { once: true });
    el.setAttribute('src', 'nowhere.pack');
    document.body.append(el);
  }));
  assert.match(message, /nowhere\.pack: HTTP 404/);
});

test('<vesper-search> over a site pack: pages as links with marked excerpts, sections under them, arrow keys', { timeout: 120_000 }, async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdirSync, mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { root } = await import('../node/helpers.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'vesper-site-element-'));
  execFileSync(join(root, 'tools/vesper'), ['build', '--site', join(root, 'tests/data/site'), '--db', 'site', '--out', join(dir, 'site.pack')], { stdio: 'ignore' });
  writeFileSync(join(dir, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site search</title>
    <script type="module" src="/vesper-search.mjs"></script></head>
    <body><h1>Albatross site</h1><vesper-search src="site.pack" model="models/default/" base="/field-guide/" threshold="0" highlight></vesper-search></body></html>`);
  // The site's own page, with the script that marks the words a result was found by.
  mkdirSync(join(dir, 'field-guide'));
  const guide = readFileSync(join(root, 'tests/data/site/index.html'), 'utf8').replace('</head>', '<script type="module" src="/vesper-highlight.mjs"></script></head>');
  writeFileSync(join(dir, 'field-guide', 'index.html'), guide);
  const siteServer = await startServer(0, [['/site-search/', dir], ['/field-guide/', join(dir, 'field-guide')]]);
  const page = await browser.newPage({ viewport: { width: 700, height: 700 } });
  const errors = watchConsole(page);
  await page.goto(urlOf(siteServer, '/site-search/'));
  await page.waitForFunction(() => !document.querySelector('vesper-search').shadowRoot.querySelector('input').disabled, null, { timeout: 60_000 });
  await page.locator('vesper-search input').fill('wingspan of the wandering albatross');
  await page.waitForFunction(() => document.querySelector('vesper-search').shadowRoot.querySelectorAll('li a').length > 0);
  const first = page.locator('vesper-search ol > li').first();
  const href = await first.locator('a').first().getAttribute('href');
  assert.equal(href, urlOf(siteServer, '/field-guide/?vesper-highlight=wingspan+of+the+wandering+albatross#wingspan'));
  assert.equal(await first.locator('a').first().textContent(), 'Albatross Field Guide');
  assert.match(await first.locator('mark').first().textContent(), /wandering|albatross|the/i);
  assert.ok(await first.locator('li[part="sub-result"] a').count() >= 1, 'the page lists its other matching sections');
  await page.locator('vesper-search input').press('ArrowDown');
  assert.equal(await page.evaluate(() => document.querySelector('vesper-search').shadowRoot.activeElement?.textContent), 'Albatross Field Guide');
  await page.screenshot({ path: join(artifacts, 'component-site.png') });
  // A filter attribute: only the pages the site marked so (data-vesper-filter on the guide's <body>).
  const searchWith = (filter) => page.evaluate((f) => {
    const el = document.querySelector('vesper-search');
    if (f) el.setAttribute('filter', f);
    else el.removeAttribute('filter');
    return el.search('wingspan of the wandering albatross');
  }, filter);
  await searchWith('section:guide');
  const filtered = await page.locator('vesper-search ol > li > a').evaluateAll((l) => l.map((a) => new URL(a.href).pathname));
  assert.ok(filtered.length > 0 && filtered.every((p) => p.startsWith('/field-guide/guide/')), filtered.join(','));
  await searchWith(null);
  assert.ok((await page.locator('vesper-search ol > li > a').evaluateAll((l) => l.map((a) => new URL(a.href).pathname))).includes('/field-guide/'));
  // On a phone (360 px): the results wrap inside the screen, nothing scrolls sideways.
  await page.setViewportSize({ width: 360, height: 740 });
  const widths = await page.evaluate(() => {
    const el = document.querySelector('vesper-search');
    const widest = Math.max(...[...el.shadowRoot.querySelectorAll('*')].map((n) => n.getBoundingClientRect().right));
    return { page: document.documentElement.scrollWidth, element: el.getBoundingClientRect().right, widest };
  });
  assert.ok(widths.page <= 360 && widths.element <= 360 && widths.widest <= 360, JSON.stringify(widths));
  await page.screenshot({ path: join(artifacts, 'component-site-360.png') });
  await page.setViewportSize({ width: 700, height: 700 });
  // The page the result opens marks the query's words in its main text, not in its scripts or navigation.
  await page.goto(href);
  await page.waitForSelector('mark.vesper-highlight');
  const marked = await page.$$eval('mark.vesper-highlight', (l) => l.map((m) => m.textContent.toLowerCase()));
  assert.ok(marked.includes('wingspan') && marked.includes('albatross'), marked.join(','));
  assert.equal(await page.$$eval('nav mark, script mark, title mark', (l) => l.length), 0);
  assert.deepEqual(errors, []);
  siteServer.close();
});

test('<vesper-search> over a split index: fetches parts per query and lists what the pack lists', { timeout: 120_000 }, async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { root } = await import('../node/helpers.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'vesper-split-element-'));
  const vesper = (...args) => execFileSync(join(root, 'tools/vesper'), args, { encoding: 'utf8' });
  vesper('build', '--site', join(root, 'tests/data/site'), '--db', 'site', '--out', join(dir, 'site.pack'));
  vesper('split', join(dir, 'site.pack'), '--out', join(dir, 'index'));
  const query = 'wingspan of the wandering albatross';
  const fromPack = JSON.parse(vesper('search', join(dir, 'site.pack'), query, '--json', '--threshold', '0')).results.map((r) => r.url);
  writeFileSync(join(dir, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Split search</title>
    <script type="module" src="/vesper-search.mjs"></script></head>
    <body><vesper-search src="index/" model="models/default/" base="/field-guide/" threshold="0"></vesper-search></body></html>`);
  const siteServer = await startServer(0, [['/split-search/', dir]]);
  const page = await browser.newPage();
  const errors = watchConsole(page);
  const parts = [];
  page.on('request', (req) => { if (/\/index\/(terms|pages)\//.test(req.url())) parts.push(new URL(req.url()).pathname); });
  await page.goto(urlOf(siteServer, '/split-search/'));
  await page.waitForFunction(() => !document.querySelector('vesper-search').shadowRoot.querySelector('input').disabled, null, { timeout: 60_000 });
  assert.equal(parts.length, 0, 'nothing but the entry before a query');
  const shown = await page.evaluate(async (q) => {
    const el = document.querySelector('vesper-search');
    const results = new Promise((resolve, reject) => {
      el.addEventListener('vesper-results', (e) => resolve(e.detail.results), { once: true });
      el.addEventListener('vesper-error', (e) => reject(new Error(e.detail.message)), { once: true });
    });
    el.search(q);
    return (await results).map((r) => r.source);
  }, query);
  assert.deepEqual(shown, fromPack);
  assert.ok(parts.some((p) => p.includes('/terms/')) && parts.some((p) => p.includes('/pages/')), parts.join(','));
  assert.deepEqual(errors, []);
  await page.close();
  siteServer.close();
});
