// `vesper model-parts DIR`: serves a static model's big tables in parts
// (web/engine/on-demand.mjs): a page then fetches the rows and lexicon words
// its packs and queries use, not the whole 8 MB table and 4 MB lexicon.
//
// Writes MODEL_DIR/rows/<n>.vrow (blocks of N rows, the core's row-set
// format) and MODEL_DIR/lexicon/<lang>-<n>.tsv (N shards per language), and
// adds static.blocks and lexicon.shards to MODEL_DIR/manifest.json. The site
// build (tools/site.mjs) runs it on its copy of the page's model, a site
// author on theirs; the whole files stay, for the CLI and for a page that
// needs most of them (or is offline with only them cached).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadCore } from './core.mjs';
import { parseManifest } from '../../web/engine/manifest.mjs';
import { LEXICON_SHARDS, ROWS_PER_BLOCK, blockFiles, lexiconShardFiles } from '../../web/engine/on-demand.mjs';

function writeAll(modelDir, dir, files) {
  rmSync(join(modelDir, dir), { recursive: true, force: true });
  let bytes = 0;
  for (const f of files) {
    mkdirSync(dirname(join(modelDir, f.path)), { recursive: true });
    writeFileSync(join(modelDir, f.path), f.bytes);
    bytes += f.bytes.byteLength;
  }
  return { files: files.length, bytes };
}

export async function writeOnDemand(modelDir, { rows = ROWS_PER_BLOCK, shards = LEXICON_SHARDS } = {}) {
  const manifestPath = join(modelDir, 'manifest.json');
  const manifest = parseManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  if (manifest.kind !== 'static') throw new Error(`${manifest.id} is not a static model: it has no table to serve in parts`);
  const core = await loadCore();
  const model = core.staticModel(readFileSync(join(modelDir, manifest.static.file)));
  const written = {};
  try {
    written.rows = writeAll(modelDir, 'rows/', blockFiles(model, { dir: 'rows/', rows }));
    manifest.static.blocks = { dir: 'rows/', rows };
  } finally {
    model.dispose();
  }
  if (manifest.lexicon) {
    const split = lexiconShardFiles(core, readFileSync(join(modelDir, manifest.lexicon.file)), { dir: 'lexicon/', count: shards });
    written.lexicon = writeAll(modelDir, 'lexicon/', split.files);
    manifest.lexicon.shards = split.shards;
  }
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return written;
}
