// The installed app's service worker: it keeps the page's shell (scripts, icons, an offline page) so the
// app opens without the network, and never keeps a score: pages, /api and /events always go to the board.
var SHELL = "cribbage-shell-VERSION";
var FILES = ["/offline", "/manifest.webmanifest", "/icon-192.png", "/icon-512.png", "PHONE_SCRIPT", "LIVE_SCRIPT", "PALETTE_SCRIPT"];
self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) { return cache.addAll(FILES); }));
  self.skipWaiting();
});
self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name !== SHELL; })
      .map(function (name) { return caches.delete(name); }));
  }));
});
self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {  // a page holds scores: always the board's, the offline page without it
    event.respondWith(fetch(request).catch(function () { return caches.match("/offline"); }));
    return;
  }
  var path = new URL(request.url).pathname;
  if (FILES.indexOf(path) >= 0 || /\.js$/.test(path)) {
    event.respondWith(caches.match(request).then(function (hit) { return hit || fetch(request); }));
  }
});
