// The npm package: `npm pack` makes a tarball that installs offline into a
// fresh folder (ONNX Runtime is optional: the default static model runs in
// the WASM core), whose `npx vesper` builds a site and searches it, and whose
// exports load the API, the engine and the element's module.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { root } from './helpers.mjs';

const run = (cmd, args, cwd) => promisify(execFile)(cmd, args, { cwd, maxBuffer: 64 << 20, env: { ...process.env, npm_config_update_notifier: 'false' } });

test('npm pack installs offline into a fresh folder and npx vesper builds and searches', { timeout: 300_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'vesper-pack-'));
  const [packed] = JSON.parse((await run('npm', ['pack', '--json', '--pack-destination', out], root)).stdout);
  const paths = packed.files.map((f) => f.path);
  for (const needed of ['tools/vesper', 'web/vesper-search.mjs', 'build-wasm/wasm/vesper_core.wasm', 'models/default/model.vtab']) {
    assert.ok(paths.includes(needed), `${needed} is in the package`);
  }
  assert.ok(!paths.some((p) => p.startsWith('tests/') || p.startsWith('core/') || p.includes('node_modules')), 'no sources or tests');
  const app = mkdtempSync(join(tmpdir(), 'vesper-app-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'site', version: '1.0.0', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--omit=optional', '--no-audit', '--no-fund', join(out, packed.filename)], app);
  const help = await run('npx', ['--offline', 'vesper', '--help'], app).catch((e) => e);
  assert.match(`${help.stdout}${help.stderr}`, /usage: vesper <command>/);
  await run('npx', ['--offline', 'vesper', 'build', '--site', join(root, 'tests/data/site'), '--db', 'site', '--out', 'site.pack'], app);
  const found = JSON.parse((await run('npx', ['--offline', 'vesper', 'search', 'site.pack', 'wingspan of the wandering albatross', '--json', '--threshold', '0'], app)).stdout);
  assert.equal(found.results[0].url, '/#wingspan');
  writeFileSync(join(app, 'check.mjs'), `
    import { create } from 'vesper';
    import { createEngine } from 'vesper/engine';
    const v = await create({ pack: 'site.pack' });
    const r = await v.search('wingspan of the wandering albatross', { threshold: 0 });
    const e = await createEngine({ model: null });
    console.log(JSON.stringify({ top: r.results[0].source, engine: typeof e.search }));
    await v.dispose(); await e.dispose();`);
  const checked = JSON.parse((await run('node', ['check.mjs'], app)).stdout);
  assert.deepEqual(checked, { top: '/#wingspan', engine: 'function' });
});
