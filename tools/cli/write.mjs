// Writing a file so that a killed or failed write never leaves it half
// written: the bytes go to a temporary file beside it, are flushed, and
// replace the old file in one rename. A reader sees the old file or the new
// one, never a truncated one.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
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
