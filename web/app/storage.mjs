// Databases kept in IndexedDB as packs, so they survive reloads. A write
// that fails (e.g. the storage quota is full) aborts its transaction: what
// was stored before stays as it was.
const DB = 'vesper';
const STORE = 'packs';

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'name' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function run(mode, fn) {
  return open().then(
    (db) =>
      new Promise((resolve, reject) => {
        const tx = db.transaction(STORE, mode);
        const result = fn(tx.objectStore(STORE));
        tx.oncomplete = () => resolve(result.result ?? result);
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error ?? new Error('storage transaction aborted'));
      }),
  );
}

export function friendlyStorageError(err) {
  if (err?.name === 'QuotaExceededError') {
    return 'The browser storage quota is full: this database was not saved (your other databases are untouched). Delete a database or free space, then store again.';
  }
  return `Could not save to browser storage: ${err?.message ?? err}`;
}

export const storage = {
  // { name, bytes, model, chunks, created }
  put(record) {
    return run('readwrite', (s) => s.put(record));
  },
  list() {
    return run('readonly', (s) => s.getAll());
  },
  remove(name) {
    return run('readwrite', (s) => s.delete(name));
  },
};
