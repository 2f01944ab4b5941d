// Offline support: the page, the WASM core, the engine, the configured model
// and the default pack are cached on install; everything else the page
// fetches from this origin (ONNX Runtime files, other models, packs) is
// cached the first time. Cached answers are served first and refreshed in
// the background, so after one visit the page works with the network off.
const VERSION = '__VESPER_BUILD__';
const CACHE = `vesper-${VERSION}`;
const PRECACHE = __VESPER_PRECACHE__;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      // Old versions of the site go; downloaded models (web/engine/download.mjs) stay.
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('vesper-') && k !== CACHE && !k.startsWith('vesper-models')).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const cached = await cache.match(event.request, { ignoreSearch: true });
      const network = fetch(event.request)
        .then((res) => {
          if (res.ok && res.status === 200) cache.put(event.request, res.clone());
          return res;
        })
        .catch(() => null);
      if (cached) {
        event.waitUntil(network);
        return cached;
      }
      return (await network) ?? new Response('offline and not cached', { status: 503, statusText: 'offline' });
    }),
  );
});
