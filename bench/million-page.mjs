// bench/million.mjs's Chromium step: headless Chromium loads the saved
// million-vector index into the core (tools/bench/web_bench.cpp) from bytes
// it fetched, then searches each query per ef, timing every call with
// performance.now(). Returns what vesper_bench hnsw-rows prints.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot } from '../tools/cli/core.mjs';
import { serve } from '../tools/serve.mjs';

const EFS = [10, 20, 40, 80, 160, 320];  // as vesper_bench hnsw-rows and hnswlib_bench.py
const ROUNDS = 3;

// Runs in the page.
async function measure({ nq, dims, efs, rounds }) {
  const { default: createBench } = await import('/bench.mjs');
  const core = await createBench();
  const bytes = new Uint8Array(await (await fetch('/saved.bin')).arrayBuffer());
  const queries = new Float32Array(await (await fetch('/queries.f32')).arrayBuffer());
  const truth = new Int32Array(await (await fetch('/truth.i32')).arrayBuffer());
  const heapBefore = core._vb_heap_mib();
  const t0 = performance.now();
  const at = core._vb_alloc(bytes.length);
  const allocated = performance.now();
  core.HEAPU8.set(bytes, at);
  const copied = performance.now();
  if (core._vb_load(at, bytes.length) !== 0) throw new Error('the saved index did not load');
  const loaded = performance.now();  // the core keeps the bytes at `at` (its rows are read in place)
  const q = core._vb_alloc(dims * 4), out = core._vb_alloc(40);
  const sweep = [], ids = [];
  for (const ef of efs) {
    core._vb_set_ef(ef);
    const us = [];
    let found = 0;
    for (let round = -1; round < rounds; round++) {  // round -1 warms up
      for (let i = 0; i < nq; i++) {
        core.HEAPF32.set(queries.subarray(i * dims, (i + 1) * dims), q / 4);
        const t = performance.now();
        core._vb_search(q, out);
        if (round >= 0) us.push(1000 * (performance.now() - t));
        if (round !== 0) continue;
        const got = core.HEAP32.slice(out / 4, out / 4 + 10);
        ids.push(...got);
        const want = new Set(truth.subarray(i * 10, i * 10 + 10));
        for (const id of got) if (want.has(id)) found++;
      }
    }
    us.sort((a, b) => a - b);
    sweep.push({ ef, recall10: found / (10 * nq), p50_us: us[us.length >> 1], p99_us: us[Math.floor(us.length * 0.99)],
      mean_us: us.reduce((a, b) => a + b, 0) / us.length });
  }
  return {
    load_s: (loaded - t0) / 1000, alloc_s: (allocated - t0) / 1000, copy_s: (copied - t0) / 1000, index_MiB: core._vb_heap_mib() - heapBefore,
    peak_MiB: core.HEAPU8.buffer.byteLength / 2 ** 20, sweep, ids,
  };
}

export async function chromiumRun({ saved, queries, truth, nq, dims, ids }) {
  const dir = mkdtempSync(join(tmpdir(), 'vesper-million-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>million</title>');
  const wasmDir = join(repoRoot, 'build-wasm');
  const server = await serve([['/bench.mjs', join(wasmDir, 'vesper_bench_web.mjs')], ['/vesper_bench_web.wasm', join(wasmDir, 'vesper_bench_web.wasm')],
    ['/saved.bin', saved], ['/queries.f32', queries], ['/truth.i32', truth], ['/', dir]],
  // Cross-origin isolated, performance.now() resolves 5 µs rather than 100.
  { headers: { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-background-networking'] });
  try {
    const page = await browser.newPage();
    page.on('console', (m) => process.stderr.write(`page: ${m.text()}\n`));
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    if (!(await page.evaluate(() => self.crossOriginIsolated))) throw new Error('the page is not cross-origin isolated');
    const r = await page.evaluate(measure, { nq, dims, efs: EFS, rounds: ROUNDS });
    writeFileSync(ids, Buffer.from(new Int32Array(r.ids).buffer));
    delete r.ids;
    return { bench: 'hnsw-rows (Chromium)', chromium: browser.version(), format: 'int8', n: null, dims, queries: nq, build_s: 0,
      saved_bytes_per_vector: null, ...r };
  } finally {
    await browser.close();
    server.close();
  }
}
