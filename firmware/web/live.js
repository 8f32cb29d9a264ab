// Live updates: the server sends the new board (its HTML) as a server-sent event on each entry,
// and the newest entry as a sentence, which the live region (#said) gives a screen reader.
(function () {
  var live = document.getElementById("live"), dot = document.getElementById("live-dot");
  var said = document.getElementById("said"), heard = said ? said.getAttribute("data-key") : null;
  if (!live || !window.EventSource) return;
  var source = new EventSource("/events");
  source.onopen = function () { dot.className = "live-dot on"; dot.title = "live"; };
  source.onerror = function () { dot.className = "live-dot"; dot.title = "reconnecting"; };
  source.onmessage = function (event) {
    var data = JSON.parse(event.data);
    if (data.html !== live.innerHTML) live.innerHTML = data.html;
    document.title = data.title;
    if (said && data.said && data.said.key !== heard) {  // a new entry (or one taken back): say it once
      heard = data.said.key;
      said.textContent = data.said.text;
    }
  };
})();
