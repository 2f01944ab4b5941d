#!/usr/bin/env node
// Serves a static model's table in blocks of rows (web/engine/rows.mjs): a
// page then fetches the rows its packs and queries use, not the whole 8 MB.
//
//   node tools/models/row-blocks.mjs MODEL_DIR [--rows N]
//
// Writes MODEL_DIR/rows/<n>.vrow (blocks of N rows, the core's row-set
// format) and adds static.blocks to MODEL_DIR/manifest.json. The site build
// (tools/site.mjs) runs it on its copy of the page's model; the table file
// stays, for the CLI and for a page that needs most of it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCore } from '../cli/core.mjs';
import { parseManifest } from '../../web/engine/manifest.mjs';
import { ROWS_PER_BLOCK, blockFiles } from '../../web/engine/rows.mjs';

export async function writeRowBlocks(modelDir, { rows = ROWS_PER_BLOCK, dir = 'rows/' } = {}) {
  const manifestPath = join(modelDir, 'manifest.json');
  const manifest = parseManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  if (manifest.kind !== 'static') throw new Error(`${manifest.id} is not a static model: it has no table to serve in blocks`);
  const core = await loadCore();
  const model = core.staticModel(readFileSync(join(modelDir, manifest.static.file)));
  try {
    rmSync(join(modelDir, dir), { recursive: true, force: true });
    let bytes = 0;
    const files = blockFiles(model, { dir, rows });
    for (const f of files) {
      mkdirSync(dirname(join(modelDir, f.path)), { recursive: true });
      writeFileSync(join(modelDir, f.path), f.bytes);
      bytes += f.bytes.byteLength;
    }
    manifest.static.blocks = { dir, rows };
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    return { blocks: files.length, bytes };
  } finally {
    model.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { rows: { type: 'string' } }, allowPositionals: true });
  if (positionals.length !== 1) {
    process.stderr.write('usage: node tools/models/row-blocks.mjs MODEL_DIR [--rows N]\n');
    process.exit(2);
  }
  const { blocks, bytes } = await writeRowBlocks(positionals[0], values.rows ? { rows: Number(values.rows) } : {});
  process.stderr.write(`${blocks} blocks (${(bytes / 1e6).toFixed(1)} MB) in ${join(positionals[0], 'rows')}\n`);
}
