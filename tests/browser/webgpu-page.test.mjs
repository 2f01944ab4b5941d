// The page on the WebGPU path (SwiftShader) gives the same top results as on
// WASM, for an ONNX model (tiny-gemma) and a pack prebuilt by the CLI.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root, seedFiles } from '../node/helpers.mjs';
import { CHROMIUM_ARGS, launch, site, startServer, urlOf } from './helpers.mjs';

let server;
before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vesper-webgpu-'));
  const pack = join(dir, 'tiny.pack');
  execFileSync(join(root, 'tools/vesper'), ['build', ...seedFiles, '--db', 'karpathy', '--model', 'tiny-gemma', '--out', pack], { stdio: 'ignore' });
  const config = JSON.parse(readFileSync(join(site(), 'config.json'), 'utf8'));
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ ...config, model: 'models/test/tiny-gemma/', defaultPack: 'packs/tiny.pack' }));
  server = await startServer(0, [['/config.json', configPath], ['/packs/tiny.pack', pack]]);
});
after(() => server?.close());

async function topResults(args, queries) {
  const browser = await launch({ args });
  const page = await browser.newPage();
  await page.goto(urlOf(server, '/'));
  await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
  const status = await page.textContent('#status-text');
  const out = [];
  for (const q of queries) {
    out.push(await page.evaluate(async (q) => {
      // The page's own engine, as the search box uses it.
      const { results } = await window.vesperEngine.search('karpathy', q, { k: 5, threshold: 0 });
      return results.map((r) => [r.id, r.score]);
    }, q));
  }
  await browser.close();
  return { status, out };
}

test('WebGPU and WASM pages return the same top results', { timeout: 300_000 }, async () => {
  const queries = ['Why did Tesla bet on cameras?', 'O que é Software 2.0?', '从零构建'];
  const gpu = await topResults(CHROMIUM_ARGS, queries);
  const wasm = await topResults(CHROMIUM_ARGS.filter((a) => a !== '--enable-unsafe-webgpu'), queries);
  assert.match(gpu.status, /tiny-gemma on webgpu/);
  assert.match(wasm.status, /tiny-gemma on wasm/);
  for (let i = 0; i < queries.length; i++) {
    assert.deepEqual(gpu.out[i].map((r) => r[0]), wasm.out[i].map((r) => r[0]), queries[i]);
    gpu.out[i].forEach((r, j) => assert.ok(Math.abs(r[1] - wasm.out[i][j][1]) < 1e-4));
  }
});

test('a GPU device lost after the check: the query is answered on WASM and the page says so', { timeout: 300_000 }, async () => {
  const browser = await launch();
  const page = await browser.newPage();
  await page.goto(urlOf(server, '/'));
  await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
  assert.match(await page.textContent('#status-text'), /tiny-gemma on webgpu/);
  const top = (q) => page.evaluate(async (q) => (await window.vesperEngine.search('karpathy', q, { k: 5, threshold: 0 })).results.map((r) => r.id), q);
  const q = 'Why did Tesla bet on cameras?';
  const onGpu = await top(q);
  // The device ONNX Runtime runs on goes away, as when the GPU process crashes or the driver resets.
  await page.evaluate(async () => {
    const ort = await import(new URL('ort/ort.webgpu.min.mjs', document.baseURI).href);
    (await ort.env.webgpu.device).destroy();
  });
  assert.deepEqual(await top(q), onGpu, 'the same results, now from WASM');
  assert.equal(await page.evaluate(() => window.vesperEngine.backend.name), 'wasm');
  assert.match(await page.textContent('#notice'), /WebGPU failed during a query \(.+\): switched to WASM/);
  await browser.close();
});
