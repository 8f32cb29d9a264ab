// The club night's page, live: each server-sent event carries the new standings and round (HTML made on the server).
(function () {
  var live = document.getElementById("live"), dot = document.getElementById("live-dot");
  if (!live || !window.EventSource) return;
  var source = new EventSource("/club/events");
  source.onopen = function () { dot.className = "live-dot on"; dot.title = "live"; };
  source.onerror = function () { dot.className = "live-dot"; dot.title = "reconnecting"; };
  source.onmessage = function (event) {
    var data = JSON.parse(event.data);
    if (data.html !== live.innerHTML) live.innerHTML = data.html;
    live.setAttribute("data-version", data.version);
    document.title = data.title;
  };
})();
