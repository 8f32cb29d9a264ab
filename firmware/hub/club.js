// The club night's page, live: the whole live part when the events begin ("snapshot"), then only what
// changed ("delta"): each changed card and standings row with the key it comes after, the heading, the
// broker's line. The HTML is made on the server; this only puts it in place and numbers the ranks.
(function () {
  "use strict";
  var live = document.getElementById("live"), dot = document.getElementById("live-dot");
  if (!live || !window.EventSource) return;
  var source = new EventSource("/club/events");
  source.onopen = function () { dot.className = "live-dot on"; dot.title = "live"; };
  source.onerror = function () { dot.className = "live-dot"; dot.title = "reconnecting"; };

  function made(html, context) {  // the element of one piece of HTML, parsed where it can stand
    var box = document.createElement(context);
    box.innerHTML = html;
    return box.firstElementChild;
  }

  function keyed(nodes, attribute) {
    var found = {};
    nodes.forEach(function (node) { found[node.getAttribute(attribute)] = node; });
    return found;
  }

  function placeHeading(html) {
    Array.prototype.slice.call(live.querySelectorAll(":scope > .heading, :scope > .problem")).forEach(
      function (node) { node.remove(); });
    live.insertAdjacentHTML("afterbegin", html);
  }

  function placeCards(data) {
    var panel = live.querySelector(".round-panel");
    if (data.reset) panel.innerHTML = data.round_head + '<ul class="tables"></ul>' + data.bye;
    var list = panel.querySelector("ul.tables");
    var cards = keyed(Array.prototype.slice.call(list.children), "data-table");
    data.tables.forEach(function (card) {
      var old = cards[card.table];
      if (old) old.remove();
      if (card.html === undefined) { delete cards[card.table]; return; }
      var node = made(card.html, "ul"), after = card.after === null ? null : cards[card.after];
      if (after) after.after(node); else list.insertBefore(node, list.firstChild);
      cards[card.table] = node;
    });
    var empty = panel.querySelector(".no-tables");
    if (list.children.length && empty) empty.remove();
    if (!list.children.length && !empty && data.no_tables) list.insertAdjacentHTML("afterend", data.no_tables);
  }

  function placeRows(data) {
    if (!data.standings.length) return;
    var body = live.querySelector(".standing-body");
    var rows = Array.prototype.slice.call(body.querySelectorAll("tr[data-player]"));
    data.standings.forEach(function (line) {
      var at = rows.findIndex(function (row) { return row.getAttribute("data-player") === line.key; });
      if (at >= 0) rows.splice(at, 1);
      if (line.gone) return;
      var after = line.after === null ? -1 : rows.findIndex(function (row) {
        return row.getAttribute("data-player") === line.after; });
      rows.splice(after + 1, 0, made(line.html, "tbody"));
    });
    var rank = 0, tie = null;  // ties share a place (1, 2, 2, 4), as the server numbers them
    rows.forEach(function (row, k) {
      var mine = row.getAttribute("data-tie");
      if (mine !== tie) { rank = k + 1; tie = mine; }
      var cell = row.querySelector(".rank");
      if (cell.textContent !== String(rank)) cell.textContent = String(rank);
    });
    layRows(body, rows, data);
  }

  function layRows(body, rows, data) {  // one column up to 14 players, two beyond, as the server lays them
    if (!rows.length) { body.innerHTML = data.no_players; return; }
    var half = rows.length > 14 ? Math.ceil(rows.length / 2) : rows.length;
    var density = rows.length <= 14 ? "few" : (rows.length <= 28 ? "two" : "two dense");
    var columns = body.querySelector(".columns");
    if (!columns) { body.innerHTML = '<div class="columns"></div>'; columns = body.firstElementChild; }
    columns.className = "columns " + density;
    var parts = [rows.slice(0, half), rows.slice(half)].filter(function (part) { return part.length; });
    while (columns.children.length < parts.length) {
      columns.insertAdjacentHTML("beforeend", '<table class="standings">' + data.standings_head + "<tbody></tbody></table>");
    }
    while (columns.children.length > parts.length) columns.lastElementChild.remove();
    parts.forEach(function (part, k) {
      var tbody = columns.children[k].querySelector("tbody");
      part.forEach(function (row, at) {
        if (tbody.children[at] !== row) tbody.insertBefore(row, tbody.children[at] || null);
      });
      while (tbody.children.length > part.length) tbody.lastElementChild.remove();
    });
  }

  source.addEventListener("snapshot", function (event) {
    var data = JSON.parse(event.data);
    if (data.html !== live.innerHTML) live.innerHTML = data.html;
    live.setAttribute("data-version", data.version);
    document.title = data.title;
  });

  source.addEventListener("delta", function (event) {
    var data = JSON.parse(event.data);
    if (data.heading !== undefined) placeHeading(data.heading);
    if (data.broker !== undefined) live.querySelector(".broker").textContent = data.broker;
    if (data.title !== undefined) document.title = data.title;
    placeCards(data);
    placeRows(data);
    if (!data.more) live.setAttribute("data-version", data.version);
  });
})();
