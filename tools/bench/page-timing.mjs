#!/usr/bin/env node
// Cold load to first result for the demo page in headless Chromium (WASM EP,
// no WebGPU), plus per-query stage timings. Prints JSON.
//   node tools/bench/page-timing.mjs [--model models/test/tiny-gemma/] [--runs 5] [--site DIR]
// --site: an assembled site to measure as it is (e.g. one build against
// another, run interleaved); without it build/site is assembled first.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot } from '../cli/core.mjs';
import { serve } from '../serve.mjs';
import { buildSite } from '../site.mjs';

const args = process.argv.slice(2);
const model = args.includes('--model') ? args[args.indexOf('--model') + 1] : null;
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 5;
const siteArg = args.includes('--site') ? args[args.indexOf('--site') + 1] : null;
const site = siteArg ?? join(repoRoot, 'build/site');
if (!siteArg) buildSite(site);
const mounts = [['/', site]];
if (model) {
  const dir = mkdtempSync(join(tmpdir(), 'vesper-bench-'));
  const pack = join(dir, 'kb.pack');
  const kb = JSON.parse(readFileSync(join(site, 'config.json'), 'utf8'));
  execFileSync(join(repoRoot, 'tools/vesper'), ['build', ...kb.knowledgeBase.files.map((f) => join(repoRoot, 'web', f)), '--db', 'karpathy', '--model', join(repoRoot, model), '--out', pack], { stdio: 'ignore' });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...kb, model, defaultPack: 'packs/kb.pack' }));
  mounts.push(['/config.json', join(dir, 'config.json')], ['/packs/kb.pack', pack]);
}
const server = await serve(mounts);
const url = `http://127.0.0.1:${server.address().port}/`;
const queries = ['Why did Tesla bet on cameras instead of LiDAR?', 'O que é Software 2.0?', '什么是从零构建', 'How do I start learning deep learning?'];
const cold = [];
const typedEarly = [];
const breakdowns = [];
const perQuery = [];
const memory = [];
const launch = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-background-networking'] });
for (let r = 0; r < runs; r++) {
  // The query typed as soon as the box is there (the page runs it once
  // ready): the page's own time to its first results, without the harness's
  // wait for the whole page. A browser of its own, so nothing is shared. The
  // page types it itself once parsed: Playwright's fill() and a waitFor
  // polling every frame force style and layout on the page while it loads
  // (~100-400 ms of a cold load on this 2-core machine).
  const first = await launch();
  const early = await first.newPage();
  await early.addInitScript((query) => {
    document.addEventListener('DOMContentLoaded', () => {
      const box = document.getElementById('query');
      box.value = query;
      box.dispatchEvent(new Event('input', { bubbles: true }));
    });
  }, queries[0]);
  await early.goto(url, { waitUntil: 'commit' });
  await early.waitForFunction(() => performance.getEntriesByName('vesper-first-results').length > 0, null, { timeout: 60_000, polling: 250 });
  typedEarly.push(Math.round(await early.evaluate(() => performance.getEntriesByName('vesper-first-results')[0].startTime)));
  await first.close();
  const browser = await launch();
  const page = await browser.newPage(); // a fresh profile: nothing cached
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
  await page.fill('#query', queries[0]);
  await page.waitForFunction(() => document.querySelectorAll('#results li:not(.hint)').length > 0, null, { timeout: 60_000 });
  cold.push(Date.now() - t0);

  // Where the time went: the page's own marks, and each file fetched (bytes as transferred, when it arrived).
  breakdowns.push(await page.evaluate(() => {
    const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
    const files = performance.getEntriesByType('resource').map((r) => ({
      file: new URL(r.name).pathname, bytes: r.transferSize || r.encodedBodySize, startMs: Math.round(r.startTime), endMs: Math.round(r.responseEnd),
    }));
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      htmlMs: Math.round(nav?.responseEnd ?? 0), engineReadyMs: Math.round(mark('vesper-engine-ready')),
      modelRestoredMs: Math.round(mark('vesper-model-restored')), storageListedMs: Math.round(mark('vesper-storage-listed')), packFetchedMs: Math.round(mark('vesper-pack-fetched')),
      packLoadedMs: Math.round(mark('vesper-pack-loaded')), databasesReadyMs: Math.round(mark('vesper-databases-ready')),
      pageReadyMs: Math.round(mark('vesper-page-ready')),
      firstResultMs: Math.round(mark('vesper-first-results')), files,
    };
  }));
  // What the page holds once the default pack is loaded: JS heap and the core's WASM memory.
  memory.push(await page.evaluate(() => ({
    jsHeapBytes: performance.memory?.usedJSHeapSize ?? null,
    wasmBytes: window.vesperEngine.core.m.HEAP8?.buffer.byteLength ?? null,
  })));
  for (const q of queries) {
    const t = await page.evaluate(async (q) => {
      const t1 = performance.now();
      const { timings } = await window.vesperEngine.search('karpathy', q, { k: 10 });
      return { ...timings, totalMs: performance.now() - t1 };
    }, q);
    perQuery.push(t);
  }
  await browser.close();
}
server.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stages = ['tokenizeMs', 'embedMs', 'searchMs', 'totalMs'];
const result = {
  model: model ?? JSON.parse(readFileSync(join(site, 'config.json'), 'utf8')).model ?? 'none (lexical)',
  runs,
  coldLoadToFirstResultMs: { median: median(cold), all: cold },
  typedAtOnceToFirstResultsMs: { median: median(typedEarly), all: typedEarly },
  memoryAfterLoad: memory[memory.length - 1],
  perQueryMedianMs: Object.fromEntries(stages.map((s) => [s, Number(median(perQuery.map((q) => q[s])).toFixed(2))])),
  // The median run's breakdown: page marks (ms from navigation) and the files it fetched.
  coldLoadBreakdown: breakdowns[cold.indexOf(median(cold))],
  transferredBytes: breakdowns[cold.indexOf(median(cold))]?.files.reduce((s, f) => s + f.bytes, 0),
};
process.stdout.write(JSON.stringify(result) + '\n');
