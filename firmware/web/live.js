// Live updates: the server sends the new board (its HTML) as a server-sent event on each entry,
// and the newest entry as a sentence, which the live region (#said) gives a screen reader. Each
// event is also dispatched on the document as "board", for a page's own script (phone.js).
(function () {
  var live = document.getElementById("live"), dot = document.getElementById("live-dot");
  var word = document.getElementById("live-word");
  var said = document.getElementById("said"), heard = said ? said.getAttribute("data-key") : null;
  if (!live || !window.EventSource) return;
  // The live state in words beside its dot; a word said again is not written again (a screen reader
  // hears a change once).
  function shown(on, text) {
    dot.className = on ? "live-dot on" : "live-dot";
    if (word.textContent !== text) word.textContent = text;
  }
  var parsed = document.createElement("template");
  var source = new EventSource("/events");
  shown(false, "connecting\u2026");
  source.onopen = function () { shown(true, "live"); };
  source.onerror = function () {  // the browser tries again unless the answer was no stream at all
    shown(false, source.readyState === EventSource.CLOSED ? "not live: reload the page" : "reconnecting\u2026");
  };
  source.addEventListener("busy", function () { source.close(); shown(false, "not live: too many pages open"); });
  source.onmessage = function (event) {
    var data = JSON.parse(event.data);
    // live: the page hears the web view; the board itself may still be stopped, and then nothing is entered
    shown(data.board !== false, data.board === false ? "board not running" : "live");
    // The board drawn again only when it changed: the event's HTML parsed inert (no style, no layout) and
    // compared as the browser writes it, so the page's first event, the board it was served with, costs no redraw.
    parsed.innerHTML = data.html;
    if (parsed.innerHTML !== live.innerHTML) live.replaceChildren(parsed.content);
    document.title = data.title;
    if (said && data.said && data.said.key !== heard) {  // a new entry (or one taken back): say it once
      heard = data.said.key;
      said.textContent = data.said.text;
    }
    document.dispatchEvent(new CustomEvent("board", { detail: data }));  // for the page's own script (phone.js)
  };
})();
