// The site author's script (tests/browser/pages/api-script.mjs) in Chromium,
// through the site's copy of the package entry: the same summary as in Node.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { create } from 'vesper';
import { root } from '../node/helpers.mjs';
import { run } from './pages/api-script.mjs';
import { launch, site, startServer, urlOf, watchConsole } from './helpers.mjs';

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.close());

test('the same script gives the same results in the browser as in Node', { timeout: 120_000 }, async () => {
  const browser = await launch();
  const page = await browser.newPage();
  const errors = watchConsole(page);
  await page.goto(urlOf(server, '/tests/inference.html'));
  const inBrowser = await page.evaluate(async () => {
    const { create } = await import('/index.mjs');
    const { run } = await import('/tests/api-script.mjs');
    return run(create, { pack: '/packs/karpathy.pack', persona: '/kb/karpathy/persona.json' });
  });
  const inNode = await run(create, { pack: join(site(), 'packs/karpathy.pack'), persona: join(root, 'web/kb/karpathy/persona.json') });
  assert.deepEqual(inBrowser, inNode);
  assert.deepEqual(errors, []);
  await browser.close();
});
