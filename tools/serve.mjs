#!/usr/bin/env node
// A static file server for the site and the browser tests, on 127.0.0.1 only.
//   tools/serve.mjs [DIR] [--port N] [--mount /prefix=DIR ...]
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';

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

// mounts: [[urlPrefix, dir]], longest prefix first.
export function serve(mounts, { port = 0, host = '127.0.0.1', headers = {} } = {}) {
  const sorted = [...mounts].sort((a, b) => b[0].length - a[0].length);
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
    const size = statSync(file).size;
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': size, 'cache-control': 'no-cache', ...headers });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  return new Promise((r) => server.listen(port, host, () => r(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  let port = 8080;
  const mounts = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--port') port = Number(args[++i]);
    else if (args[i] === '--mount') {
      const [prefix, dir] = args[++i].split('=');
      mounts.push([prefix, resolve(dir)]);
    } else mounts.push(['/', resolve(args[i])]);
  }
  if (!mounts.length) mounts.push(['/', resolve('build/site')]);
  const server = await serve(mounts, { port });
  process.stderr.write(`serving ${mounts.map(([p, d]) => `${p} -> ${d}`).join(', ')} at http://127.0.0.1:${server.address().port}/\n`);
}
