#!/usr/bin/env node
// A large knowledge base end to end, as a user meets it: `vesper build`
// (wall time, peak memory), the pack's size per section, loading it (native
// core from bytes in memory; the WASM engine: the pack, then piece matching),
// and one `vesper search` from a cold process (lexical and hybrid).
// Appends a row to bench/results/pack-load.json and prints it as Markdown.
// Not a test: the numbers are machine facts.
//
//   node bench/pack-load.mjs [--mb 50] [--label "after"]
//
// The text is the default knowledge base's, cut into 10,000-character-ish
// notes as bench/limits/run.mjs does (1,000 files for 5 MB, 10,000 for 50).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../tools/cli/core.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const MB = 1e6;
const sizeMB = Number(arg('--mb', '5'));
const label = arg('--label', 'current');
const work = join(repoRoot, `build/bench-pack-${sizeMB}`);
const vesper = join(repoRoot, 'tools/vesper');
const QUERY = 'Why did Tesla drop LiDAR and bet on cameras?';

function knowledgeBase() {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'kb'), { recursive: true });
  const config = JSON.parse(readFileSync(join(repoRoot, 'web/config.json'), 'utf8'));
  const seeds = config.knowledgeBase.files.map((f) => readFileSync(join(repoRoot, 'web', f), 'utf8')).join('\n\n');
  const files = Math.round(sizeMB * 200);
  const perFile = Math.round((sizeMB * MB) / files);
  let total = 0;
  const paths = [];
  for (let i = 0; i < files; i++) {
    const start = (i * 7919) % Math.max(1, seeds.length - perFile);
    const text = `# Note ${i}\n\n${seeds.slice(start, start + perFile)}`;
    total += Buffer.byteLength(text);
    paths.push(join(work, 'kb', `${String(i).padStart(5, '0')}.md`));
    writeFileSync(paths.at(-1), text);
  }
  return { paths, textMB: total / MB };
}

// Wall seconds and peak resident MB of a command (GNU time).
function timed(cmd, args) {
  const report = join(work, 'time.txt');
  const out = execFileSync('/usr/bin/time', ['-f', '%e %M', '-o', report, cmd, ...args], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const [seconds, kb] = readFileSync(report, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { seconds, peakMB: kb / 1024, out };
}

async function engineLoad(pack) {
  const { createEngine } = await import('../web/vesper-engine.mjs');
  const engine = await createEngine({ model: join(repoRoot, 'models/default') });
  const bytes = new Uint8Array(readFileSync(pack));
  const t0 = performance.now();
  const [db] = engine.core.loadPack(bytes, engine.model);
  const t1 = performance.now();
  db.enablePieceMatch(engine.embedder.tokenizer, engine.embedder.pieceModel);
  const t2 = performance.now();
  const searchMs = await warmSearchMs(engine, db);
  db.dispose();
  await engine.dispose();
  return { loadMs: Math.round(t1 - t0), pieceMatchMs: Math.round(t2 - t1), searchMs };
}

// A search once the pack is loaded (issue "Scale": under 50 ms): the query
// embedded and searched as the engine does (the core's query: hybrid, the
// answerability decision), the median of WARM_SEARCHES after one to warm up.
const WARM_SEARCHES = 7;
async function warmSearchMs(engine, db) {
  const times = [];
  for (let i = 0; i <= WARM_SEARCHES; i++) {
    const t = performance.now();
    const { vectors } = await engine.embedder.embed([QUERY], { kind: 'query' });
    db.query(QUERY, vectors, { k: 10 });
    if (i > 0) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Number(times[times.length >> 1].toFixed(1));
}

const { paths, textMB } = knowledgeBase();
writeFileSync(join(work, 'files.txt'), paths.join('\n'));
const pack = join(work, 'kb.pack');
const build = timed(vesper, ['build', ...paths, '--db', 'kb', '--out', pack]);
const sections = JSON.parse(execFileSync(vesper, ['inspect', pack, '--json']).toString()).sections;
const bySection = {};
for (const s of sections) bySection[s.kind] = (bySection[s.kind] ?? 0) + s.size / MB;
const native = join(repoRoot, 'build/vesper_bench');
const nativeLoad = existsSync(native) ? JSON.parse(execFileSync(native, ['load', pack, '3']).toString()).load_s : null;
const wasm = await engineLoad(pack);
const lexical = timed(vesper, ['search', pack, QUERY, '--mode', 'lexical', '--json']);
const hybrid = timed(vesper, ['search', pack, QUERY, '--json']);
const row = {
  label, date: new Date().toISOString(), textMB: Number(textMB.toFixed(1)), files: paths.length,
  buildSeconds: build.seconds, buildPeakMB: Math.round(build.peakMB),
  packMB: Number((readFileSync(pack).length / MB).toFixed(1)),
  sectionsMB: Object.fromEntries(Object.entries(bySection).map(([k, v]) => [k, Number(v.toFixed(2))])),
  nativeLoadMs: nativeLoad === null ? null : Math.round(nativeLoad * 1000), wasmLoadMs: wasm.loadMs, wasmPieceMatchMs: wasm.pieceMatchMs,
  wasmSearchMs: wasm.searchMs, searchLexicalSeconds: lexical.seconds, searchHybridSeconds: hybrid.seconds, searchPeakMB: Math.round(hybrid.peakMB),
};
const resultsPath = join(repoRoot, 'bench/results/pack-load.json');
const rows = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : [];
rows.push(row);
writeFileSync(resultsPath, `${JSON.stringify(rows, null, 1)}\n`);
process.stdout.write([
  '| run | text | build | build peak | pack | sections (MB) | load native | load WASM + pieces | search after load (WASM) | search lexical / hybrid (cold CLI) |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.label} (${r.date.slice(0, 10)}) | ${r.textMB} MB, ${r.files} files | ${r.buildSeconds} s | ${r.buildPeakMB} MB | ${r.packMB} MB | ${Object.entries(r.sectionsMB).map(([k, v]) => `${k} ${v}`).join(', ')} | ${r.nativeLoadMs ?? '–'} ms | ${r.wasmLoadMs} + ${r.wasmPieceMatchMs} ms | ${r.wasmSearchMs ?? '–'} ms | ${r.searchLexicalSeconds} / ${r.searchHybridSeconds} s |`),
  '',
].join('\n'));
