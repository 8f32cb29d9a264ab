// Live updates: the server sends the new board (its HTML) as a server-sent event on each entry.
(function () {
  var live = document.getElementById("live"), dot = document.getElementById("live-dot");
  if (!live || !window.EventSource) return;
  var source = new EventSource("/events");
  source.onopen = function () { dot.className = "live-dot on"; dot.title = "live"; };
  source.onerror = function () { dot.className = "live-dot"; dot.title = "reconnecting"; };
  source.onmessage = function (event) {
    var data = JSON.parse(event.data);
    if (data.html !== live.innerHTML) live.innerHTML = data.html;
    document.title = data.title;
  };
})();
