// Command dispatch for tools/vesper. Each command prints human-readable text,
// or with --json a stable JSON document (see README, "CLI").
import { printable, printableLine } from './terminal.mjs';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, UsageError } from './args.mjs';
import { loadCore, openEngine } from './core.mjs';
import { fetchModel } from './fetch.mjs';
import { loadTokenizer } from '../../web/engine/embedder.mjs';
import { fileReader, generatorSpec, listModels, resolveModel, useModelSpec } from './models.mjs';
import { GENERATED_DEFAULTS, speak } from '../../web/engine/grounded.mjs';
import { Progress } from './progress.mjs';
import { fileSpill, writeFileAtomic, writeFileAtomicStream } from './write.mjs';
import { writeOnDemand } from './model-parts.mjs';
import { NO_META_TEXT, citationLabel, metaTextOf } from '../../web/engine/kb.mjs';
import { excerptHtml, fieldsOf, filtersFrom, groupByPage, pageOf } from '../../web/engine/results.mjs';
import { DEFAULT_URL_TEMPLATE, siteDocuments } from '../../web/engine/site.mjs';
import { lancedbTable, pgvectorSql, qdrantJson } from '../../web/engine/export.mjs';
import { SPLIT_ENTRY, describeSplit, partPath, splitFiles } from '../../web/engine/split.mjs';


const USAGE = `usage: vesper <command> [options]

  build FILES... --db NAME [--model ID|DIR | --lexical] [--dims N] [--vectors auto|float32|int8|binary] [--persona FILE] --out FILE.pack
                                              chunk, embed (default model: models/default) and index documents into a pack;
                                              --persona marks the sections its persona file names as meta text
  build --site DIR [--url-template T] --db NAME --out FILE.pack [options as above]
                                              a built HTML site or a Markdown folder: results link to page URLs and
                                              heading anchors (Markdown pages at T, default ${DEFAULT_URL_TEMPLATE})
  search FILE.pack "query"|- [--db NAME] [--model ID|DIR] [-k N] [--threshold T]
         [--mode hybrid|vector|lexical] [--filter KEY:VALUE]... [--json]
  ask FILE.pack "question"|- [--persona FILE] [--session FILE] [--db NAME] [--model ID|DIR] [--threshold T] [--json]
      [--generator ID|DIR [--max-tokens N] [--temperature T] [--seed S]]
                                              the persona answers from the pack, citing its passages; with a
                                              generator (e.g. gemma-3-270m-it) it says so in its own words,
                                              grounded in those passages (its own answer where that fails a check)
  persona FILE.json [--json]                  validate a persona file and describe it
  inspect FILE.pack|DIR [--json]              validate a pack (or every part of a split folder) and describe it
  split FILE.pack --out DIR [--db NAME] [--neighbors N]
                                              a pack cut into parts a static site serves (an entry, term, page and
                                              match fragments): a page fetches per query only the parts it needs;
                                              search and ask take DIR as they take a pack. --neighbors: each model
                                              piece's nearest pieces listed for piece matching (16); 0 lists none,
                                              and a page then reads the model rows of every fetched passage's pieces
                                              (the whole table on a large site) to rank exactly as the pack
  export FILE.pack --to pgvector|qdrant|lancedb [--db NAME] [--table NAME] [--out PATH]
                                              a database's passages and vectors for a real vector database: pgvector
                                              SQL or Qdrant JSON (stdout without --out), a LanceDB table (--out DIR)
  tokenize [--model ID|DIR | --tokenizer FILE.model] [--no-special] [--json] "text"
  embed --model ID|DIR [--dims N] [--document] [--json] "text"
  fetch-model ID|DIR [--variant V] [--allow-unpinned]
  models [--json]                             the models here and what can be fetched, with sizes
  model-parts DIR                             beside a static model's files in DIR (your site's copy of the model),
                                              its table in blocks and its lexicon in shards: a page then fetches
                                              only the parts its queries use

  A query, question or text given as "-" is read from standard input.
`;

function warn(message) {
  process.stderr.write(`vesper: warning: ${message}\n`);
}

// A file as a document whose text is read when its batch is built, not all
// up front (a large knowledge base is never held whole); a file that is
// missing or not a file fails now, before anything is embedded.
function fileDocument(path) {
  const info = statFile(path, readText);
  return { source: basename(path), size: info.size, get text() { return readText(path); } };
}

// A file's stat, failing now (with its path, as reading it would: `read`)
// when it is missing or not a file.
function statFile(path, read) {
  let info;
  try {
    info = statSync(path);
  } catch (err) {
    err.path ??= String(path);
    throw err;
  }
  if (!info.isFile()) read(path);  // a folder fails now as reading it does
  return info;
}

// A pack on disk as the core reads it (core.loadPack, inspectPack): read
// straight into the core's memory, each time it is staged, never held in JS.
function fileSource(path) {
  const info = statFile(path, readFileSync);
  return {
    size: info.size,
    read(view) {
      const fd = openSync(path, 'r');
      try {
        for (let at = 0; at < view.length;) {
          const n = readSync(fd, view, at, view.length - at, at);
          if (n === 0) throw new Error(`${path} became shorter while it was read`);
          at += n;
        }
      } finally {
        closeSync(fd);
      }
    },
  };
}

function readText(path) {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    err.path ??= path === 0 ? 'standard input' : String(path);  // EISDIR comes without one
    throw err;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${path === 0 ? 'standard input' : path} is not valid UTF-8 text`);
  }
}

// A query or text argument; "-" reads it from standard input, for text longer
// than the system's argument limit (128 kB per argument on Linux).
function textArg(value) {
  return value === '-' ? readText(0) : value;
}

async function build(argv) {
  const { options, positionals } = parseArgs(argv, {
    db: 'string', out: 'string', model: 'string', dims: 'number', variant: 'string', vectors: 'string', 'max-tokens': 'number',
    lexical: 'boolean', persona: 'string', site: 'string', 'url-template': 'string',
  });
  if (options.lexical && options.model) throw new UsageError('build takes --model or --lexical, not both');
  // The project's own default model, unless another model or a lexical-only pack is asked for.
  if (!options.lexical) options.model ??= 'default';
  if (!positionals.length && !options.site) throw new UsageError('build needs input files or --site DIR');
  if (positionals.length && options.site) throw new UsageError('build takes input files or --site DIR, not both');
  if (!options.db) throw new UsageError('build needs --db NAME');
  if (!options.out) throw new UsageError('build needs --out FILE.pack');
  const engine = await openEngine();
  if (options.model) await useModelSpec(engine, options.model, { dims: options.dims, variant: options.variant });
  const model = engine.model;
  const metaText = options.persona ? metaTextOf(JSON.parse(readText(options.persona))) : NO_META_TEXT;
  const docs = options.site ? siteInput(options.site, options['url-template'])
    : positionals.map(fileDocument);
  if (options.site && !docs.length) throw new Error(`${options.site} has no HTML or Markdown page with text`);
  const progress = new Progress(model ? `embedding ${options.db}` : `indexing ${options.db}`, 1);
  // The passages' text waits in a file beside the pack, not in memory.
  const spill = fileSpill(options.out);
  let db, size;
  try {
    db = await engine.store(options.db, docs, {
      metaText, maxTokens: options['max-tokens'], vectors: options.vectors ?? 'auto', spill,
      onProgress: (p) => {
        progress.total = p.total;
        progress.update(p.done, model ? model.id : '');
      },
      onWarning: (w) => warn(`${w.chunk.source} chunk ${w.chunk.id}: ${w.message}`),
    });
    // Streamed to the file a piece at a time: a large pack is never held whole.
    size = writeFileAtomicStream(options.out, (write) => engine.exportPack(options.db, { write }));
  } finally {
    spill.close();
  }
  const described = model ? `, ${model.id} (${engine.backend.name})` : ', lexical only';
  const from = options.site ? `${new Set(docs.map((d) => pageOf(d.source))).size} pages of ${options.site}` : `${positionals.length} files`;
  progress.done(`${db.size} chunks from ${from}${described} -> ${options.out} (${size} bytes)`);
  return 0;
}

// Folders a site's build or a docs tree holds that are not pages.
const NOT_PAGES = new Set(['node_modules', '.git']);

// A site's pages as documents (web/engine/site.mjs), in path order.
function siteInput(dir, urlTemplate = DEFAULT_URL_TEMPLATE) {
  const files = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.') || NOT_PAGES.has(entry.name)) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(html?|md|markdown)$/i.test(entry.name)) files.push({ path: relative(dir, path), text: readText(path) });
    }
  };
  walk(dir);
  return siteDocuments(files, { urlTemplate });
}

function pickCollection(collections, name, path) {
  if (!collections.length) throw new Error(`${path} holds no collections`);
  if (!name) return collections[0];
  const found = collections.find((c) => c.name === name);
  if (!found) throw new Error(`no database '${name}' in ${path} (it has: ${collections.map((c) => c.name).join(', ')})`);
  return found;
}

// An engine holding a pack, with the model its database's vectors need
// (or --model's: the core refuses a pack made by another); `name` is the
// database asked for (--db) or the pack's first.
// A folder `vesper split` wrote.
const isSplit = (path) => existsSync(join(path, SPLIT_ENTRY));

async function openSplitFolder(engine, dir, options) {
  const { name, model } = describeSplit(engine.core, readFileSync(join(dir, SPLIT_ENTRY)));
  if (model) await useModelSpec(engine, options.model ?? model.id);
  else if (options.model) throw new Error(`database '${name}' is lexical only: it has no vectors for ${options.model}`);
  await engine.openSplit(pathToFileURL(`${resolve(dir)}/`));
  return { engine, name, threshold: options.threshold ?? null };
}

// A pack, or a folder `vesper split` wrote.
async function openPack(path, options) {
  const engine = await openEngine();
  if (isSplit(path)) return openSplitFolder(engine, path, options);
  const bytes = fileSource(path);
  const described = pickCollection(engine.core.inspectPack(bytes).collections, options.db, path);
  if (described.model) {
    await useModelSpec(engine, options.model ?? described.model.id);
  } else if (options.model) {
    throw new Error(`database '${described.name}' is lexical only: it has no vectors for ${options.model}`);
  }
  engine.loadPack(bytes);
  return { engine, name: described.name, threshold: options.threshold ?? null };
}

// --filter key:value (repeatable) as the engine's filters: { key: [values] }.
function searchFilters(list) {
  if (!list) return null;
  const { filters, malformed } = filtersFrom(list);
  if (malformed.length) throw new UsageError(`--filter expects key:value, got '${malformed[0]}'`);
  return filters;
}

async function search(argv) {
  const { options, positionals } = parseArgs(
    argv,
    { db: 'string', model: 'string', k: 'number', threshold: 'number', mode: 'string', json: 'boolean', filter: 'list' },
    { k: 'k' },
  );
  const filters = searchFilters(options.filter);
  const [path, queryArg] = positionals;
  const query = queryArg === undefined ? undefined : textArg(queryArg);
  if (!path || query === undefined) throw new UsageError('search needs FILE.pack and "query"');
  if (!query.trim()) throw new UsageError('the query is empty');
  if (options.k !== undefined && !(Number.isInteger(options.k) && options.k > 0)) {
    throw new UsageError(`-k must be a positive whole number, got ${options.k}`);
  }
  const { engine, name, threshold } = await openPack(path, options);
  const found = await engine.search(name, query, { k: options.k ?? 5, mode: options.mode ?? 'hybrid', threshold, padTo: 0, filters });
  for (const w of found.warnings) warn(w.message);
  // A site's passages link to their page and heading: url, and an excerpt with the query's words marked.
  const row = (r) => ({
    id: r.id, score: Number(r.score.toFixed(6)), title: r.title, text: r.text, source: r.source, signals: r.signals,
    ...(pageOf(r.source) === null ? {} : { url: r.source, excerpt: excerptHtml(r.text, query) }), ...fieldsOf(r),
  });
  const out = found.results.map(row);
  const near = found.nearMisses.slice(0, NEAR_MISSES).map(row);
  if (options.json) {
    const pages = out.some((r) => r.url) ? { pages: groupByPage(found.results, query) } : {};
    process.stdout.write(JSON.stringify({
      answerable: found.answerable, unsure: found.unsure, confidence: Number(found.confidence.toFixed(4)), results: out, nearMisses: near, ...pages,
    }) + '\n');
    return 0;
  }
  const print = (r) => {
    const title = r.title.length ? r.title.join(' > ') : '(untitled)';
    const text = r.text.replace(/[ \t\n\r]+/g, ' ').slice(0, 200);
    process.stdout.write(`${r.score.toFixed(3)}  ${printableLine(r.source)}  ${printableLine(title)}\n  ${printableLine(text)}\n`);
  };
  if (!out.length && !near.length && filters) {
    process.stdout.write('no passage of a page with those filters\n');
  } else if (!out.length) {
    process.stdout.write(found.answerable
      ? `no passage scores above ${found.threshold.toFixed(3)}; the nearest:\n`
      : found.unsure
        ? `not sure the knowledge base answers this (confidence ${found.confidence.toFixed(2)}); the closest passages:\n`
        : 'the knowledge base does not seem to answer this; the nearest passages:\n');
    near.forEach(print);
  } else {
    out.forEach(print);
  }
  return 0;
}

const EXPORTS = ['pgvector', 'qdrant', 'lancedb'];

async function exportCommand(argv) {
  const { options, positionals } = parseArgs(argv, { to: 'string', db: 'string', table: 'string', out: 'string' });
  if (positionals.length !== 1) throw new UsageError('export needs FILE.pack');
  if (!EXPORTS.includes(options.to)) throw new UsageError(`export needs --to ${EXPORTS.join('|')}`);
  const [path] = positionals;
  const engine = await openEngine();
  const bytes = fileSource(path);
  const { name } = pickCollection(engine.core.inspectPack(bytes).collections, options.db, path);
  // No model is needed to read vectors back: the pack is taken whatever model made it.
  engine.loadPack(bytes, { anyModel: true });
  const db = engine.require(name);
  const table = options.table ?? name;
  if (options.to === 'lancedb') {
    if (!options.out) throw new UsageError('export --to lancedb needs --out DIR (the LanceDB database folder)');
    let lancedb;
    try {
      lancedb = await import('@lancedb/lancedb');
    } catch {
      throw new Error('export --to lancedb needs the @lancedb/lancedb package: npm install @lancedb/lancedb');
    }
    const { rows } = await lancedbTable(db, { dir: options.out, lancedb, table });
    process.stderr.write(`vesper: ${rows} passages of '${name}' -> LanceDB table '${table}' in ${options.out}\n`);
    return 0;
  }
  const text = options.to === 'pgvector' ? pgvectorSql(db, { table }) : `${JSON.stringify(qdrantJson(db, { collection: table }))}\n`;
  if (options.out) writeFileAtomic(options.out, Buffer.from(text));
  else process.stdout.write(text);
  return 0;
}

// A piece's neighbours a match fragment lists, at most (core/collection/split_format.h).
const MAX_NEIGHBORS = 255;

// Writes the parts beside `out` first, then puts them in its place in one
// rename: a killed split leaves the previous folder as it was.
function writeSplitFolder(out, files) {
  if (existsSync(out) && !isSplit(out) && readdirSync(out).length) {
    throw new Error(`${printableLine(out)} is a folder that is not a split index: give an empty or new folder`);
  }
  const temp = join(dirname(resolve(out)), `.${basename(resolve(out))}.${process.pid}.tmp`);
  const old = `${temp}.old`;
  rmSync(temp, { recursive: true, force: true });
  try {
    for (const { path, bytes } of files) {
      mkdirSync(dirname(join(temp, path)), { recursive: true });
      writeFileAtomic(join(temp, path), bytes);
    }
    if (existsSync(out)) renameSync(out, old);
    renameSync(temp, out);
  } finally {
    rmSync(temp, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}

async function splitCommand(argv) {
  const { options, positionals } = parseArgs(argv, { db: 'string', out: 'string', model: 'string', neighbors: 'number' });
  if (positionals.length !== 1 || !options.out) throw new UsageError('split needs FILE.pack and --out DIR');
  const { neighbors } = options;
  if (neighbors !== undefined && !(Number.isInteger(neighbors) && neighbors >= 0 && neighbors <= MAX_NEIGHBORS)) {
    throw new UsageError(`--neighbors must be a whole number from 0 to ${MAX_NEIGHBORS}, got ${neighbors}`);
  }
  const [path] = positionals;
  const { engine, name } = await openPack(path, options);
  const progress = new Progress(`splitting ${printableLine(name)}`, 1);
  const onProgress = (done, total) => {
    progress.total = total;
    progress.update(done, 'neighbour lists');
  };
  const files = splitFiles(engine.core, engine.require(name), { onProgress, ...(neighbors === undefined ? {} : { matchNeighbors: neighbors }) });
  progress.done(`${files.length} files`);
  writeSplitFolder(options.out, files);
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  const sum = (prefix) => files.filter((f) => f.path.startsWith(prefix)).reduce((n, f) => n + f.bytes.length, 0);
  const count = (prefix) => files.filter((f) => f.path.startsWith(prefix)).length;
  process.stdout.write(`${printableLine(options.out)}: '${printableLine(name)}' as an entry of ${kb(files[0].bytes.length)}, ` +
    `${count('terms/')} term fragments (${kb(sum('terms/'))}), ${count('pages/')} page fragments (${kb(sum('pages/'))}) ` +
    `and ${count('matches/')} match fragments (${kb(sum('matches/'))})\n`);
  return 0;
}

// Every part of a split folder read and checked as a page would read it
// (each term fragment, each page fragment into one collection, each match
// fragment); its shape.
function inspectSplit(core, dir) {
  const index = core.splitIndex(readFileSync(join(dir, SPLIT_ENTRY)));
  const db = index.makeCollection();
  try {
    const part = (kind, count, add) => {
      let bytes = 0;
      for (let i = 0; i < count; i++) {
        const data = readFileSync(join(dir, partPath(`${kind}${i}`)));
        add(i, data);
        bytes += data.length;
      }
      return { count, bytes };
    };
    const terms = part('t', index.termFragments, (i, data) => index.addTerms(i, data));
    const pages = part('p', index.pageFragments, (i, data) => index.addPages(i, data, db));
    const matches = part('m', index.matchFragments, (i, data) => index.addMatches(i, data));
    return {
      entryBytes: statSync(join(dir, SPLIT_ENTRY)).size, terms, pages, matches,
      collection: { name: db.name, model: db.model, passages: index.passages, held: db.size },
    };
  } finally {
    db.dispose();
    index.dispose();
  }
}

async function inspect(argv) {
  const { options, positionals } = parseArgs(argv, { json: 'boolean' });
  if (positionals.length !== 1) throw new UsageError('inspect needs FILE.pack');
  const core = await loadCore();
  if (isSplit(positionals[0])) {
    const info = inspectSplit(core, positionals[0]);
    if (options.json) {
      process.stdout.write(JSON.stringify(info) + '\n');
      return 0;
    }
    const c = info.collection;
    const model = c.model ? `${printableLine(c.model.id)}, ${c.model.dims} dims` : 'lexical only';
    process.stdout.write(`${printableLine(positionals[0])}: vesper split index, every part checked\n` +
      `  ${printableLine(c.name)}: ${c.passages} chunks (${model})\n    entry    ${info.entryBytes} bytes\n` +
      `    terms    ${info.terms.count} fragments, ${info.terms.bytes} bytes\n    pages    ${info.pages.count} fragments, ${info.pages.bytes} bytes\n` +
      `    matches  ${info.matches.count} fragments, ${info.matches.bytes} bytes\n`);
    return 0;
  }
  const info = core.inspectPack(fileSource(positionals[0]));
  if (options.json) {
    process.stdout.write(JSON.stringify(info) + '\n');
    return 0;
  }
  process.stdout.write(`${positionals[0]}: vesper pack v${info.version}, ${info.bytes} bytes, checksums ok\n`);
  info.collections.forEach((c, i) => {
    const model = c.model ? `${printableLine(c.model.id)}, ${c.model.dims} dims` : 'lexical only';
    process.stdout.write(`  ${printableLine(c.name)}: ${c.chunks} chunks (${model}${c.hnsw ? ', HNSW' : ''})\n`);
    for (const s of info.sections.filter((x) => x.collection === i)) process.stdout.write(`    ${s.kind.padEnd(8)} ${s.size} bytes\n`);
  });
  return 0;
}

async function tokenize(argv) {
  const { options, positionals } = parseArgs(argv, { tokenizer: 'string', model: 'string', special: 'boolean', json: 'boolean' });
  if (!options.tokenizer && !options.model) throw new UsageError('tokenize needs --model ID|DIR or --tokenizer FILE.model');
  if (positionals.length !== 1) throw new UsageError('tokenize needs one "text" argument');
  const core = await loadCore();
  let tok;
  if (options.tokenizer) {
    tok = core.tokenizer(readFileSync(options.tokenizer));
  } else {
    // Only the tokenizer is needed: no weights have to be downloaded for this.
    const model = resolveModel(options.model);
    tok = await loadTokenizer(core, model.manifest, fileReader(model));
  }
  const e = tok.encode(textArg(positionals[0]), { addSpecial: options.special !== false });
  if (options.json) {
    process.stdout.write(JSON.stringify({ ids: Array.from(e.ids), pieces: e.pieces }) + '\n');
  } else {
    process.stdout.write(e.pieces.map((p, i) => `${e.ids[i]}\t${printableLine(p)}`).join('\n') + '\n');
  }
  return 0;
}

async function embed(argv) {
  const { options, positionals } = parseArgs(argv, { model: 'string', dims: 'number', document: 'boolean', json: 'boolean' });
  if (!options.model) throw new UsageError('embed needs --model ID|DIR');
  if (positionals.length !== 1) throw new UsageError('embed needs one "text" argument');
  const engine = await openEngine();
  await useModelSpec(engine, options.model, { dims: options.dims });
  const embedder = engine.embedder;
  const out = await embedder.embed([textArg(positionals[0])], { kind: options.document ? 'document' : 'query' });
  for (const w of out.warnings) warn(w.message);
  const vector = Array.from(out.vectors, (x) => Number(x.toFixed(7)));
  if (options.json) {
    process.stdout.write(JSON.stringify({ model: embedder.info.id, dims: out.dims, tokens: out.tokens[0], vector }) + '\n');
  } else {
    process.stdout.write(`${embedder.info.id} (${out.dims} dims, ${out.tokens[0]} tokens)\n${vector.join(' ')}\n`);
  }
  return 0;
}

async function fetchModelCommand(argv) {
  const { options, positionals } = parseArgs(argv, { variant: 'string', 'allow-unpinned': 'boolean' });
  if (positionals.length !== 1) throw new UsageError('fetch-model needs a model ID or DIR');
  const model = resolveModel(positionals[0]);
  let progress = null;
  const results = await fetchModel({ manifest: model.manifest, dir: model.store }, {
    variant: options.variant,
    allowUnpinned: options['allow-unpinned'],
    onFile: (f) => {
      progress = new Progress(f.path, 1);
    },
    onBytes: (done, total) => {
      if (progress && total) {
        progress.total = total;
        progress.update(done, `${(done / 1e6).toFixed(1)} MB`);
      }
    },
    log: warn,
  });
  for (const r of results) process.stderr.write(`${r.path}: ${r.skipped ? 'already present' : 'downloaded'}, sha256 ${r.sha256}\n`);
  return 0;
}

// Passages listed when nothing is shown, so the user still sees what was near.
const NEAR_MISSES = 3;

const DEFAULT_PERSONA = new URL('../../web/kb/karpathy/persona.json', import.meta.url);

// engine.ask with the state a session file held. When that state is
// what the core refuses (a field of the wrong type, say), the user is told
// which file and what to do, not only which field.
async function answerWithSession(engine, [name, question, threshold], state, session) {
  try {
    return await engine.ask(name, question, { conversation: state, threshold });
  } catch (err) {
    if (!session || err.code !== 'invalid_argument') throw err;
    await engine.ask(name, question, { threshold });  // throws again if the question is the problem
    throw new Error(`${session} holds a conversation this version cannot read (${err.message}); delete it to start a new conversation`);
  }
}

// ask --generator: the persona's reply, spoken by a generator over the
// passages it cites (web/engine/grounded.mjs); the extractive reply where
// the generated one fails its checks.
async function spoken(engine, [name, question, threshold], state, options) {
  const { generator } = await generatorSpec(engine.core, options.generator);
  try {
    const settings = {};
    if (options['max-tokens'] !== undefined) settings.maxTokens = options['max-tokens'];
    if (options.temperature !== undefined) settings.temperature = options.temperature;
    if (options.seed !== undefined) settings.seed = options.seed;
    const budget = settings.maxTokens ?? GENERATED_DEFAULTS.maxTokens;
    const progress = new Progress(`speaking with ${generator.info.id}`, budget);
    let tokens = 0;
    const reply = await speak({
      engine, generator, name, question, conversation: state, threshold, options: settings, onToken: () => progress.update(++tokens, `${tokens} tokens`),
    });
    if (reply.stopped) progress.done(`${reply.tokens} tokens, ${(reply.tokens / Math.max(reply.seconds, 1e-9)).toFixed(1)} tokens/s${reply.generated ? '' : ', not kept'}`);
    return reply;
  } finally {
    await generator.dispose();
  }
}

// One turn of a conversation with the persona; --session keeps the state between calls.
async function ask(argv) {
  const { options, positionals } = parseArgs(argv, {
    db: 'string', model: 'string', persona: 'string', session: 'string', threshold: 'number', json: 'boolean',
    generator: 'string', 'max-tokens': 'number', temperature: 'number', seed: 'number',
  });
  const [path, questionArg] = positionals;
  const question = questionArg === undefined ? undefined : textArg(questionArg);
  if (!path || question === undefined) throw new UsageError('ask needs FILE.pack and "question"');
  if (!question.trim()) throw new UsageError('the question is empty');
  const { engine, name, threshold } = await openPack(path, options);
  const persona = engine.loadPersona(readText(options.persona ?? DEFAULT_PERSONA));
  let state = {};
  if (options.session && existsSync(options.session)) {
    try {
      const saved = JSON.parse(readFileSync(options.session, 'utf8'));
      if (saved.persona === persona.id) state = saved.state ?? {};
      else warn(`session ${options.session} belongs to persona '${saved.persona}': starting a new conversation`);
    } catch {
      throw new Error(`${options.session} is not a vesper session file (JSON); delete it to start a new conversation`);
    }
  }
  const reply = options.generator
    ? await spoken(engine, [name, question, threshold], state, options)
    : await answerWithSession(engine, [name, question, threshold], state, options.session);
  if (options.session) {
    writeFileAtomic(options.session, JSON.stringify({ persona: persona.id, state: reply.state }, null, 1) + '\n');
  }
  const citations = reply.citations.map((c) => ({ n: c.n, id: c.id, title: c.title, source: c.source, language: c.language, score: Number(c.score.toFixed(6)) }));
  if (options.json) {
    process.stdout.write(JSON.stringify({
      answer: reply.answer, language: reply.language, kind: reply.kind, citations, declined: reply.declined,
      in_role: reply.inRole, disclaimer: reply.disclaimer, unsure: reply.unsure, passage_languages: reply.passageLanguages || null,
      ...(options.generator ? { generator: reply.generator, generated: reply.generated, fallback: reply.fallback, stopped: reply.stopped } : {}),
    }) + '\n');
  } else {
    if (reply.fallback && reply.stopped) warn(`the generated answer was not kept (${reply.fallback}): the persona's own answer follows`);
    process.stdout.write(`${printable(reply.answer)}\n`);
    if (citations.length) {
      process.stdout.write('\n');
      for (const c of citations) process.stdout.write(`[${c.n}] ${printableLine(citationLabel(c))}\n`);
    }
  }
  return 0;
}

// Validates a persona file (the core's checks) and describes it. Compiling
// one from documents is the knowledge base's business (e.g.
// web/kb/karpathy/compile-persona.mjs), not the generic CLI's.
async function personaCommand(argv) {
  const { options, positionals } = parseArgs(argv, { json: 'boolean' });
  if (positionals.length !== 1) throw new UsageError('persona needs one persona file (JSON)');
  const text = readText(positionals[0]);
  const core = await loadCore();
  const persona = core.persona(text);
  const id = persona.id;
  const name = persona.name;
  persona.dispose();
  const file = JSON.parse(text);
  const count = (x) => (Array.isArray(x) ? x.length : 0);
  const info = {
    id, name, quotes: count(file.quotes), analogies: count(file.analogies), qa: count(file.qa),
    banned_words: count(file.banned_words?.en), out_of_scope: count(file.out_of_scope), languages: Object.keys(file.phrases ?? {}),
  };
  if (options.json) {
    process.stdout.write(JSON.stringify(info) + '\n');
    return 0;
  }
  process.stdout.write(`${positionals[0]}: persona '${printableLine(name)}' (${printableLine(id)}), valid: ${info.quotes} quotes, ${info.analogies} analogies, ` +
    `${info.qa} Q&A, ${info.banned_words} banned words, ${info.out_of_scope} out-of-scope rules, phrases in ${info.languages.map(printableLine).join(', ')}\n`);
  return 0;
}

// The models in the search path: per variant installed (with its size) or
// what fetch-model would download.
async function modelsCommand(argv) {
  const { options, positionals } = parseArgs(argv, { json: 'boolean' });
  if (positionals.length) throw new UsageError('models takes no arguments');
  const models = listModels();
  if (options.json) {
    process.stdout.write(JSON.stringify(models) + '\n');
    return 0;
  }
  const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
  for (const m of models) {
    if (m.error) {
      process.stdout.write(`${printableLine(m.id)}: broken manifest (${printableLine(m.error)})\n`);
      continue;
    }
    process.stdout.write(`${printableLine(m.id)} (${m.kind}${m.dims ? `, ${m.dims} dims` : ''}): ${printableLine(m.name)}\n`);
    for (const [name, v] of Object.entries(m.variants)) {
      const status = v.installed ? `installed, ${mb(v.bytes)}`
        : v.fetchable ? `not downloaded${v.download ? ` (${v.download.approx ? 'about ' : ''}${mb(v.download.bytes)})` : ''}: tools/vesper fetch-model ${m.id} --variant ${name}`
          : `incomplete: missing ${v.missing.join(', ')}`;
      process.stdout.write(`  ${printableLine(name)}: ${printableLine(status)}\n`);
    }
  }
  return 0;
}

async function modelPartsCommand(argv) {
  const { positionals } = parseArgs(argv, {});
  if (positionals.length !== 1) throw new UsageError('model-parts needs the folder of a static model (its manifest.json)');
  const written = await writeOnDemand(positionals[0]);
  for (const [what, w] of Object.entries(written)) {
    process.stdout.write(`${what}: ${w.files} files, ${(w.bytes / 1e6).toFixed(1)} MB, in ${printableLine(join(positionals[0], what === 'rows' ? 'rows' : 'lexicon'))}\n`);
  }
  return 0;
}

const COMMANDS = {
  build, search, ask, persona: personaCommand, inspect, split: splitCommand, export: exportCommand, tokenize, embed, 'fetch-model': fetchModelCommand, models: modelsCommand,
  'model-parts': modelPartsCommand,
};

// What the file system said, in words a user can act on (node's own message
// is "EISDIR: illegal operation on a directory, read").
const FILE_ERRORS = {
  EISDIR: 'is a folder, not a file: give the files in it (e.g. FOLDER/*.md)',
  ENOENT: 'does not exist',
  EACCES: 'cannot be read or written (permission denied)',
  ENOTDIR: 'is not inside a folder (a part of the path is a file)',
  ENOSPC: 'could not be written: the disk is full',
};

export function errorMessage(err) {
  const what = FILE_ERRORS[err?.code];
  if (what && err.path !== undefined) return `${printableLine(err.path)} ${what}`;
  return err?.message ?? String(err);
}

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
