// Writing a file so that a killed or failed write never leaves it half
// written: the bytes go to a temporary file beside it, are flushed, and
// replace the old file in one rename. A reader sees the old file or the new
// one, never a truncated one.
import { closeSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

// The same for bytes that come in pieces: fill(write) calls write(bytes)
// for each, in order; returns what fill returned.
export function writeFileAtomicStream(path, fill) {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  try {
    const fd = openSync(temp, 'w');
    let result;
    try {
      result = fill((bytes) => {
        for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
      });
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    return result;
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

export function writeFileAtomic(path, data) {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    const fd = openSync(temp, 'w');
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

// Where the CLI's build keeps a database's passages while it is built
// (Collection.spillTo): a file beside the pack it will write, so that the
// text is not held in memory (bench/limits/REPORT.md); close() removes it.
export function fileSpill(outPath) {
  const dir = dirname(outPath);
  mkdirSync(dir, { recursive: true });
  const records = tempFile(join(dir, `.${basename(outPath)}.${process.pid}.passages.tmp`));
  // Piece matching's lists, in a second file (Collection.spillTo's `pieces`);
  // the first is removed when the second cannot be made.
  let pieces;
  try {
    pieces = tempFile(join(dir, `.${basename(outPath)}.${process.pid}.pieces.tmp`));
  } catch (err) {
    records.close();
    throw err;
  }
  return {
    ...records,
    pieces,
    close() {
      records.close();
      pieces.close();
    },
  };
}

// A file bytes are appended to and read back from; close() removes it.
function tempFile(path) {
  const fd = openSync(path, 'w+');
  return {
    append(view) {
      for (let at = 0; at < view.length;) at += writeSync(fd, view, at, view.length - at);
    },
    read(view, offset) {
      return readSync(fd, view, 0, view.length, offset);
    },
    close() {
      closeSync(fd);
      rmSync(path, { force: true });
    },
  };
}
