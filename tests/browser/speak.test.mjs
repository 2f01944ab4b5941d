// The persona's opt-in voice on the page (web/app/speak.mjs), with the tiny
// test generator served as the site's generator: the control, loading it on
// WASM, an answer shown at once and then spoken, streamed with a stop
// button; the tiny model's words cite nothing, so the extractive answer
// stays and the page says why; a stopped generation. (The loader's WebGPU
// gate and the model's tokens on WebGPU: inference.test.mjs, whose page
// runs SwiftShader once for all of it.) Screenshots go to build/test-artifacts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root } from '../node/helpers.mjs';
import { artifacts, CHROMIUM_ARGS, launch, site, startServer, urlOf, watchConsole } from './helpers.mjs';

let server, hubSite, hubServer, hubServed = 0;
const REPO = '/test-org/tiny-gemma-it-ONNX/resolve/main/';
before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vesper-speak-'));
  const config = JSON.parse(readFileSync(join(site(), 'config.json'), 'utf8'));
  config.generator = { folder: 'models/test/tiny-gemma-it/', maxTokens: 40 };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  // The same model as a download: a loopback "hub" serving it in an ONNX
  // repository's layout, with CORS as Hugging Face sends it.
  const weights = readFileSync(join(root, 'models/test/tiny-gemma-it/model.onnx'));
  hubServer = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-length' };
    if (new URL(req.url, 'http://x').pathname !== `${REPO}onnx/model_q4.onnx`) return res.writeHead(404, cors).end();
    hubServed++;
    res.writeHead(200, { ...cors, 'content-length': weights.length }).end(weights);
  });
  await new Promise((r) => hubServer.listen(0, '127.0.0.1', r));
  const manifest = JSON.parse(readFileSync(join(root, 'models/test/tiny-gemma-it/manifest.json'), 'utf8'));
  manifest.tokenizer.file = '../test/tokenizer.model';
  manifest.defaultVariant = 'q4';
  manifest.variants = { q4: { files: [{ path: 'onnx/model_q4.onnx', url: `http://127.0.0.1:${hubServer.address().port}${REPO}onnx/model_q4.onnx`, bytes: weights.length, sha256: createHash('sha256').update(weights).digest('hex') }] } };
  mkdirSync(join(dir, 'hub-it'));
  writeFileSync(join(dir, 'hub-it/manifest.json'), JSON.stringify(manifest));
  const hubConfig = { ...config, generator: { folder: 'models/hub-it/', maxTokens: 8 } };
  writeFileSync(join(dir, 'config-hub.json'), JSON.stringify(hubConfig));
  server = await startServer(0, [['/config.json', join(dir, 'config.json')]]);
  // The same site whose generator is the hub's.
  hubSite = await startServer(0, [['/config.json', join(dir, 'config-hub.json')], ['/models/hub-it/', join(dir, 'hub-it')]]);
});
after(() => {
  server?.close();
  hubSite?.close();
  hubServer?.close();
});

async function openPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  const errors = watchConsole(page);
  await page.goto(urlOf(server, '/'));
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  await page.waitForSelector('#speak-row:not([hidden])');
  return { page, errors };
}

async function ask(page, question) {
  const n = await page.$$eval('#chat-log li.persona', (l) => l.length);
  await page.fill('#chat-input', question);
  await page.press('#chat-input', 'Enter');
  await page.waitForFunction((k) => document.querySelectorAll('#chat-log li.persona').length > k, n);
  return '#chat-log li.persona:last-child';
}

const turnOn = async (page) => {
  await page.check('#speak-toggle');
  await page.waitForFunction(() => /speaks with|could not be loaded/.test(document.getElementById('speak-status').textContent), null, { timeout: 60_000 });
  return page.textContent('#speak-status');
};

test('the persona speaks on WASM: the answer at once, the model streamed, its words not kept without a citation, a stop', { timeout: 180_000 }, async () => {
  const browser = await launch({ args: CHROMIUM_ARGS.filter((a) => a !== '--enable-unsafe-webgpu') });
  const { page, errors } = await openPage(browser);
  assert.match(await page.textContent('#speak-label'), /Tiny Gemma-3-like test generator \(runs on this device\)/);
  // Off: answers are the persona's own, nothing is spoken.
  const plain = await ask(page, 'Why did Tesla bet on cameras instead of LiDAR?');
  assert.equal(await page.$eval(plain, (li) => li.dataset.generated ?? null), null);
  const status = await turnOn(page);
  assert.match(status, /speaks with Tiny Gemma-3-like test generator \(wasm: /);
  const li = await ask(page, 'Why did Tesla bet on cameras instead of LiDAR?');
  const extractive = await page.textContent(`${li} .answer`);
  assert.match(extractive, /camera/i, 'the extractive answer is shown while the model speaks');
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.generated !== undefined, li, { timeout: 120_000 });
  const done = await page.$eval(li, (x) => ({ ...x.dataset, note: x.querySelector('.speak-note')?.textContent, answer: x.querySelector('.answer').textContent }));
  assert.equal(done.generated, 'false');
  assert.match(done.note, /not kept \(no citation of the given passages\)/);
  assert.equal(done.answer, extractive, 'the extractive answer stays');
  assert.ok(Number(done.tokensPerSecond) > 0);
  console.log(`tiny generator on WASM: ${done.tokensPerSecond} tokens/s`);
  await page.screenshot({ path: join(artifacts, 'speak-wasm.png'), fullPage: true });

  // Stopped as it speaks (the button pressed as soon as it shows): what it said so far is checked as any reply.
  await page.evaluate(() => {
    const watch = new MutationObserver(() => {
      const stop = document.querySelector('#chat-log .speak-stop');
      if (stop) stop.click(), watch.disconnect();
    });
    watch.observe(document.getElementById('chat-log'), { childList: true, subtree: true });
  });
  const stopped = await ask(page, 'How do I start learning deep learning?');
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.generated !== undefined, stopped, { timeout: 60_000 });
  assert.equal(await page.$eval(stopped, (x) => x.dataset.stopped), 'cancelled');
  // Out of scope: declined, nothing spoken.
  const declined = await ask(page, "What's a good recipe for lasagna?");
  assert.equal(await page.$eval(declined, (x) => x.dataset.generated ?? null), null);
  assert.deepEqual(errors, []);
  await browser.close();
});

test('a generator the site does not serve is downloaded once, with its size said first, then loads from the cache offline', { timeout: 180_000 }, async () => {
  const browser = await launch({ args: CHROMIUM_ARGS.filter((a) => a !== '--enable-unsafe-webgpu') });
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchConsole(page);
  await page.goto(urlOf(hubSite, '/'));
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  await page.waitForSelector('#speak-row:not([hidden])');
  assert.match(await page.textContent('#speak-label'), /\(downloads 1\.4 MB, then runs on this device\)/);
  assert.equal(hubServed, 0, 'nothing is downloaded before the visitor asks for it');
  assert.match(await turnOn(page), /speaks with Tiny Gemma-3-like test generator \(wasm: /);
  assert.equal(hubServed, 1);
  const li = await ask(page, 'Why did Tesla bet on cameras instead of LiDAR?');
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.generated !== undefined, li, { timeout: 60_000 });
  // A later visit with the hub gone: the generator comes from Cache Storage.
  hubServer.close();
  const again = await context.newPage();
  await again.goto(urlOf(hubSite, '/'));
  await again.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  await again.waitForSelector('#speak-row:not([hidden])');
  assert.match(await turnOn(again), /speaks with Tiny Gemma-3-like test generator/);
  assert.equal(hubServed, 1);
  assert.deepEqual(errors, []);
  await browser.close();
});
