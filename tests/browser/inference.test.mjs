// WebGPU against WASM in headless Chromium on the test models: the same
// vectors (and the torch reference), the probe check choosing WebGPU, and
// falling back to WASM with a reason when WebGPU's output is not trusted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, startServer, urlOf, watchConsole } from './helpers.mjs';

let server, browser, page, errors;

before(async () => {
  server = await startServer();
  browser = await launch();
  page = await browser.newPage();
  errors = watchConsole(page);
  await page.goto(urlOf(server, '/tests/inference.html'));
  await page.waitForFunction(() => window.ready === true);
});
after(async () => {
  await browser?.close();
  server?.close();
});

function maxAbsDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

for (const id of ['tiny-gemma', 'static-tiny']) {
  test(`${id}: WebGPU (SwiftShader) equals WASM and torch`, { timeout: 240_000 }, async (t) => {
    const r = await page.evaluate((id) => window.runCheck(id), id);
    assert.ok(!r.error, r.error);
    assert.ok(r.webgpu.vectors.length === r.wasm.vectors.length);
    const flat = r.reference.flat();
    const gpuVsWasm = maxAbsDiff(r.webgpu.vectors, r.wasm.vectors);
    const wasmVsTorch = maxAbsDiff(r.wasm.vectors, flat);
    const gpuVsTorch = maxAbsDiff(r.webgpu.vectors, flat);
    t.diagnostic(`${id}: webgpu vs wasm ${gpuVsWasm.toExponential(2)}, wasm vs torch ${wasmVsTorch.toExponential(2)}, webgpu vs torch ${gpuVsTorch.toExponential(2)}; chosen ${r.chosen.backend}`);
    assert.ok(wasmVsTorch < 1e-5, `wasm vs torch ${wasmVsTorch}`);
    assert.ok(gpuVsWasm < 1e-4, `webgpu vs wasm ${gpuVsWasm}`);
    if (id === 'static-tiny') {
      // Static models never need ONNX Runtime: the core runs them.
      assert.equal(r.chosen.backend, 'vesper-core');
    } else {
      assert.equal(r.chosen.adapter?.architecture, 'swiftshader', 'no WebGPU adapter: is --enable-unsafe-webgpu set?');
      assert.equal(r.chosen.backend, 'webgpu', r.chosen.reason);
      assert.ok(r.chosen.probe.cosine >= 0.999);
    }
    assert.deepEqual(errors, []);
  });
}

test('an untrusted WebGPU result falls back to WASM and says why', { timeout: 240_000 }, async () => {
  // A bar no backend can pass stands in for WebGPU returning wrong vectors.
  const r = await page.evaluate(() => window.runCheck('tiny-gemma', 1.5));
  assert.ok(!r.error, r.error);
  assert.equal(r.chosen.backend, 'wasm');
  assert.match(r.chosen.reason, /WebGPU output disagrees with WASM on the probe text \(cosine (0\.99|1\.00)\d+ < 1\.5\): using WASM/);
});

test('tiny-gemma-it: greedy tokens over the key/value cache equal torch\'s on WASM and on WebGPU (SwiftShader)', { timeout: 240_000 }, async (t) => {
  const r = await page.evaluate(() => window.runGenerator());
  assert.ok(!r.error, r.error);
  const torch = r.reference.conversations.map((c) => c.greedy);
  assert.deepEqual(r.wasm, torch, 'WASM');
  assert.deepEqual(r.webgpu, torch, 'WebGPU');
  assert.ok(r.gate.ok, `the logits gate: difference ${r.gate.diff} of scale ${r.gate.scale}`);
  assert.equal(r.chosen.backend, 'webgpu', r.chosen.reason);
  assert.match(r.chosen.reason, /^WebGPU logits match WASM \(largest difference /);
  t.diagnostic(`tokens/s: WASM ${r.wasmTokensPerSecond.toFixed(1)}, WebGPU (SwiftShader) ${r.webgpuTokensPerSecond.toFixed(1)}; gate difference ${r.gate.diff.toExponential(2)}`);
  assert.deepEqual(errors, []);
});
