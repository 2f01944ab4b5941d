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
});

test('<vesper-search> says when nothing answers and lists the nearest passages greyed', { timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  const errors = watchConsole(page);
  const { results } = await openExample(page);
  await page.locator('vesper-search input').fill('How do I bake sourdough bread at home?');
  assert.equal(await results, 0);
  assert.match(await page.locator('vesper-search .status').textContent(), /Nothing here seems to answer that/);
  const near = await page.locator('vesper-search li[part="near-miss"]').count();
  assert.ok(near > 0 && near <= 3, `${near} near misses`);
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
