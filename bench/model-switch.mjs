#!/usr/bin/env node
// From "use" to the first search with a new model, excluding the download:
// the page (build/site) switches from its default model to the tiny test
// encoder (models/test/tiny-gemma, 2 layers, 64 dims) and re-embeds the
// default knowledge base, in headless Chromium on WASM and on WebGPU
// (SwiftShader: a CPU emulation, correctness only; its time says nothing of
// a GPU). Writes bench/results/model-switch.json and prints a Markdown table.
//
//   node bench/model-switch.mjs [--skip-webgpu]
//
// The time splits into loading the model and probing WebGPU (fixed), and
// re-embedding (per passage); bench/REPORT.md scales the per-passage part to
// real models by their compute per token.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../tests/browser/helpers.mjs';
import { buildSite } from '../tools/site.mjs';
import { serve } from '../tools/serve.mjs';
import { repoRoot } from '../tools/cli/core.mjs';

const MODEL = 'models/test/tiny-gemma/';

async function measure(server, webgpu) {
  const args = webgpu ? CHROMIUM_ARGS : CHROMIUM_ARGS.filter((a) => a !== '--enable-unsafe-webgpu');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
    return await page.evaluate(async (model) => {
      const e = window.vesperEngine;
      const t0 = performance.now();
      let firstEmbed = null;
      await e.switchModel(model, {
        reembed: { karpathy: null },
        onProgress: (p) => {
          if (p.stage === 'embed' && firstEmbed === null) firstEmbed = performance.now();
        },
      });
      const reembedded = performance.now();
      const r = await e.search('karpathy', 'Why did Tesla drop LiDAR?');
      const t1 = performance.now();
      const passages = e.require('karpathy').size;
      // Load and probe end where the first batch's embedding starts (one batch of 16 is counted in re-embedding).
      return {
        backend: e.backend.name, reason: e.backend.reason, passages,
        loadAndProbeMs: Math.round(firstEmbed - t0), reembedMs: Math.round(reembedded - firstEmbed),
        perPassageMs: Number(((reembedded - firstEmbed) / passages).toFixed(2)), firstSearchMs: Math.round(t1 - reembedded),
        totalMs: Math.round(t1 - t0), queryDims: r.query.vector?.length ?? 0,
      };
    }, MODEL);
  } finally {
    await browser.close();
  }
}

const site = buildSite(join(repoRoot, 'build/bench-site'));
const server = await serve([['/', site]]);
const rows = [];
try {
  rows.push({ browser: 'Chromium, WASM', ...(await measure(server, false)) });
  if (!process.argv.includes('--skip-webgpu')) rows.push({ browser: 'Chromium, WebGPU (SwiftShader)', ...(await measure(server, true)) });
} finally {
  server.close();
}
mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
const out = { model: MODEL, command: `node bench/model-switch.mjs${process.argv.slice(2).map((a) => ` ${a}`).join('')}`, date: new Date().toISOString(), rows };
writeFileSync(join(repoRoot, 'bench/results/model-switch.json'), `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write('| browser | backend | passages | load + probe | re-embed | per passage | first search | total |\n|---|---|---|---|---|---|---|---|\n');
for (const r of rows) {
  process.stdout.write(`| ${r.browser} | ${r.backend} | ${r.passages} | ${r.loadAndProbeMs} ms | ${r.reembedMs} ms | ${r.perPassageMs} ms | ${r.firstSearchMs} ms | ${(r.totalMs / 1000).toFixed(1)} s |\n`);
}
