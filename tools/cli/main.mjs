// Command dispatch for tools/vesper. Each command prints human-readable text,
// or with --json a stable JSON document (see README, "CLI").
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseArgs, UsageError } from './args.mjs';
import { loadCore } from './core.mjs';
import { Progress } from './progress.mjs';

// Lexical-only packs gate on normalised BM25 (see core/lexical/bm25.h).
export const LEXICAL_THRESHOLD = 0.1;
export const DEFAULT_THRESHOLD = 0.35;

const USAGE = `usage: vesper <command> [options]

  build FILES... --db NAME --out FILE.pack    chunk and index documents into a pack
  search FILE.pack "query" [--db NAME] [-k N] [--threshold T] [--mode hybrid|vector|lexical] [--json]
  inspect FILE.pack [--json]                  validate a pack and describe it
  tokenize --tokenizer FILE.model [--no-special] [--json] "text"
`;

function readText(path) {
  const bytes = readFileSync(path);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${path} is not valid UTF-8 text`);
  }
}

async function build(argv) {
  const { options, positionals } = parseArgs(argv, { db: 'string', out: 'string', 'max-tokens': 'number' });
  if (!positionals.length) throw new UsageError('build needs at least one input file');
  if (!options.db) throw new UsageError('build needs --db NAME');
  if (!options.out) throw new UsageError('build needs --out FILE.pack');
  const core = await loadCore();
  const db = core.collection(options.db, null);
  const progress = new Progress(`indexing ${options.db}`, positionals.length);
  let chunks = 0;
  positionals.forEach((file, i) => {
    const text = readText(file);
    const pieces = core.chunk(basename(file), text, options['max-tokens'] ? { maxTokens: options['max-tokens'] } : {});
    chunks += db.add(pieces);
    progress.update(i + 1, basename(file));
  });
  if (!chunks) throw new Error('no text to index: every input file is empty');
  const bytes = core.savePack([db]);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, bytes);
  progress.done(`${chunks} chunks from ${positionals.length} files -> ${options.out} (${bytes.length} bytes)`);
  return 0;
}

function pickCollection(collections, name, path) {
  if (!collections.length) throw new Error(`${path} holds no collections`);
  if (!name) return collections[0];
  const found = collections.find((c) => c.name === name);
  if (!found) throw new Error(`no database '${name}' in ${path} (it has: ${collections.map((c) => c.name).join(', ')})`);
  return found;
}

async function search(argv) {
  const { options, positionals } = parseArgs(
    argv,
    { db: 'string', k: 'number', threshold: 'number', mode: 'string', json: 'boolean' },
    { k: 'k' },
  );
  const [path, query] = positionals;
  if (!path || query === undefined) throw new UsageError('search needs FILE.pack and "query"');
  if (!query.trim()) throw new UsageError('the query is empty');
  const core = await loadCore();
  const db = pickCollection(core.loadPack(readFileSync(path)), options.db, path);
  if (db.model) {
    throw new Error(`database '${db.name}' needs its embedding model ${db.model.id} for search; this CLI build searches lexical packs only`);
  }
  const threshold = options.threshold ?? LEXICAL_THRESHOLD;
  const results = db.search(query, null, { k: options.k ?? 5, threshold, mode: options.mode ?? 'hybrid' });
  const out = results.map((r) => ({
    id: r.id,
    score: Number(r.score.toFixed(6)),
    title: r.title,
    text: r.text,
    source: r.source,
    signals: r.signals,
  }));
  if (options.json) {
    process.stdout.write(JSON.stringify({ results: out }) + '\n');
  } else if (!out.length) {
    process.stdout.write(`no passage above the threshold ${threshold}\n`);
  } else {
    for (const r of out) {
      const title = r.title.length ? r.title.join(' > ') : '(untitled)';
      process.stdout.write(`${r.score.toFixed(3)}  ${r.source}  ${title}\n  ${r.text.replace(/\s+/g, ' ').slice(0, 200)}\n`);
    }
  }
  return 0;
}

async function inspect(argv) {
  const { options, positionals } = parseArgs(argv, { json: 'boolean' });
  if (positionals.length !== 1) throw new UsageError('inspect needs FILE.pack');
  const core = await loadCore();
  const info = core.inspectPack(readFileSync(positionals[0]));
  if (options.json) {
    process.stdout.write(JSON.stringify(info) + '\n');
    return 0;
  }
  process.stdout.write(`${positionals[0]}: vesper pack v${info.version}, ${info.bytes} bytes, checksums ok\n`);
  for (const c of info.collections) {
    const model = c.model ? `${c.model.id}, ${c.model.dims} dims` : 'lexical only';
    process.stdout.write(`  ${c.name}: ${c.chunks} chunks (${model}${c.hnsw ? ', HNSW' : ''})\n`);
  }
  return 0;
}

async function tokenize(argv) {
  const { options, positionals } = parseArgs(argv, { tokenizer: 'string', special: 'boolean', json: 'boolean' });
  if (!options.tokenizer) throw new UsageError('tokenize needs --tokenizer FILE.model');
  if (positionals.length !== 1) throw new UsageError('tokenize needs one "text" argument');
  const core = await loadCore();
  const tok = core.tokenizer(readFileSync(options.tokenizer));
  const e = tok.encode(positionals[0], { addSpecial: options.special !== false });
  if (options.json) {
    process.stdout.write(JSON.stringify({ ids: Array.from(e.ids), pieces: e.pieces }) + '\n');
  } else {
    process.stdout.write(e.pieces.map((p, i) => `${e.ids[i]}\t${p}`).join('\n') + '\n');
  }
  return 0;
}

const COMMANDS = { build, search, inspect, tokenize };

export async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const run = COMMANDS[command];
  if (!run) throw new UsageError(`unknown command '${command}'\n${USAGE}`);
  return run(rest);
}
