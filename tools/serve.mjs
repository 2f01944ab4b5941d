#!/usr/bin/env node
// A static file server for the site and the browser tests, on 127.0.0.1 only.
//   tools/serve.mjs [DIR] [--port N] [--gzip] [--mount /prefix=DIR ...]
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.txt': 'text/plain; charset=utf-8', '.md': 'text/markdown',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.webmanifest': 'application/manifest+json',
};

// The request's path, percent-decoded, or null when it does not decode.
function decodedPath(url) {
  try {
    return decodeURIComponent(new URL(url, 'http://x').pathname);
  } catch {
    return null;
  }
}

// Whether file lies in dir or below: a path check, not a string prefix
// (which let "/..%2fsite-secret/x" reach a sibling "site-secret" of "site").
function inside(dir, file) {
  const rel = relative(resolve(dir), file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

// Types a static host compresses (images and archives are compressed already).
const COMPRESSED_TYPES = new Set(['.png']);

// A file's gzip body, once per file and modification (gzip: true serves
// what a static host such as GitHub Pages sends to a browser that accepts
// it, so that benchmarks count compressed bytes as served); null when
// gzip does not make it smaller.
function gzipped(cache, file, mtimeMs) {
  const key = `${file}\0${mtimeMs}`;
  if (!cache.has(key)) {
    const raw = readFileSync(file);
    const gz = gzipSync(raw, { level: 6 });
    cache.set(key, gz.length < raw.length ? gz : null);
  }
  return cache.get(key);
}

// mounts: [[urlPrefix, dir]], longest prefix first.
export function serve(mounts, { port = 0, host = '127.0.0.1', headers = {}, gzip = false } = {}) {
  const sorted = [...mounts].sort((a, b) => b[0].length - a[0].length);
  const cache = new Map();
  const server = createServer((req, res) => {
    const path = decodedPath(req.url);
    if (path === null) return res.writeHead(400).end();
    if (path === '/favicon.ico') return res.writeHead(204).end();
    const mount = sorted.find(([prefix]) => path.startsWith(prefix));
    if (!mount || path.includes('\0')) return res.writeHead(404).end();
    // A mount may be a single file (e.g. a test's config.json).
    const single = existsSync(mount[1]) && statSync(mount[1]).isFile();
    let file = single ? mount[1] : resolve(mount[1], `./${path.slice(mount[0].length)}`);
    if (!single && !inside(mount[1], file)) return res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const { size, mtimeMs } = statSync(file);
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    const accepts = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const body = gzip && accepts && !COMPRESSED_TYPES.has(extname(file)) ? gzipped(cache, file, mtimeMs) : null;
    const head = { 'content-type': type, 'content-length': body ? body.length : size, 'cache-control': 'no-cache', ...headers };
    if (body) Object.assign(head, { 'content-encoding': 'gzip', vary: 'accept-encoding' });
    res.writeHead(200, head);
    if (req.method === 'HEAD') return res.end();
    if (body) return res.end(body);
    createReadStream(file).pipe(res);
  });
  return new Promise((r) => server.listen(port, host, () => r(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  let port = 8080;
  let gzip = false;
  const mounts = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--port') port = Number(args[++i]);
    else if (args[i] === '--gzip') gzip = true;
    else if (args[i] === '--mount') {
      const [prefix, dir] = args[++i].split('=');
      mounts.push([prefix, resolve(dir)]);
    } else mounts.push(['/', resolve(args[i])]);
  }
  if (!mounts.length) mounts.push(['/', resolve('build/site')]);
  const server = await serve(mounts, { port, gzip });
  process.stderr.write(`serving ${mounts.map(([p, d]) => `${p} -> ${d}`).join(', ')} at http://127.0.0.1:${server.address().port}/\n`);
}
