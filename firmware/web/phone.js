// A seat's phone: each tap goes to the board (through the web view) with an id of its own, and the
// board's answer is shown as the board says it. The live board comes as server-sent events.
(function () {
  var root = document.getElementById("phone");
  if (!root) return;
  var seat = Number(root.getAttribute("data-seat")), token = root.getAttribute("data-token");
  var state = JSON.parse(root.getAttribute("data-state") || "null");
  var live = document.getElementById("live"), dot = document.getElementById("live-dot");
  var liveWord = document.getElementById("live-word");
  var answer = document.getElementById("answer"), status = document.getElementById("status");
  var dialShown = document.getElementById("dial"), dial = "";
  var heard = null, counted = null, spokenCount = null;

  function me() { return state && state.seats ? state.seats[seat] : null; }
  function sideOf(name) {
    if (!state || !state.sides) return null;
    for (var i = 0; i < state.sides.length; i++) if (state.sides[i].seats.indexOf(name) >= 0) return state.sides[i];
    return null;
  }
  function say(text, kind) { answer.textContent = text; answer.className = "answer " + (kind || ""); }

  function showState() {
    var name = me(), parts = [];
    if (!state || !state.variant) { status.textContent = "No game on the board yet."; return; }
    if (name === null || name === undefined) { status.textContent = "This game has no player on your seat."; return; }
    var side = sideOf(name);
    parts.push("You: <b></b> " + (side ? side.score : ""));
    status.innerHTML = parts.join("");
    status.querySelector("b").textContent = name;
    var next = document.createElement("span");
    if (state.winner) next.textContent = state.winner + " won";
    else if (state.next) next.textContent = "Next count: " + state.next.seat + " " + state.next.count +
      (state.phase === "heels" || state.phase === "play" ? " (after the play)" : "");
    status.appendChild(next);
    var dealer = state.dealer === name;
    setEnabled("heels", dealer && state.phase === "heels");
    setEnabled("crib", dealer);
    setEnabled("claim", !!(state.options && state.options.muggins));
  }
  function setEnabled(act, on) {
    var buttons = root.querySelectorAll('button[data-act="' + act + '"]');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = !on;
  }

  function requestId() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // One entry: sent, and on a network failure sent again with the same id (the board pegs it once).
  function send(act, points, done, failed) {
    var id = requestId(), tries = 0;
    say("Sending\u2026");
    function attempt() {
      tries += 1;
      fetch("/api/phone/entry", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-Phone-Token": token },
        body: JSON.stringify({ id: id, act: act, points: points })
      }).then(function (response) {
        return response.json().then(function (body) { return [response.status, body]; });
      }).then(function (result) {
        var body = result[1];
        if (body.ok) { say(body.text, "accepted"); if (done) done(body); return; }
        say(body.message || "Not entered", "refused");
        if (failed) failed();
      }).catch(function () {
        if (tries < 3) { setTimeout(attempt, 600 * tries); return; }
        say("No answer from the board: look at the board before you tap again", "refused");
        if (failed) failed();
      });
    }
    attempt();
  }

  function showDial() { dialShown.textContent = dial === "" ? "0" : dial; }
  root.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button || !root.contains(button)) return;
    var digit = button.getAttribute("data-digit"), act = button.getAttribute("data-act");
    if (digit !== null) {
      if (digit === "clear") dial = "";
      else if (digit === "19") dial = "19";
      else dial = (dial === "19" || dial.length >= 2 ? "" : dial) + digit;
      if (Number(dial) > 29) dial = digit;
      showDial();
      return;
    }
    if (act === null) return;
    var points = button.hasAttribute("data-points") ? Number(button.getAttribute("data-points")) : Number(dial || 0);
    if ((act === "hand" || act === "crib") && dial === "19") points = 0;  // nineteen: a hand of no points
    if (act === "heels" || act === "undo") points = 0;
    send(act, points, function () { if (!button.hasAttribute("data-points")) { dial = ""; showDial(); } });
  });

  // ---- check my count: the hand, then the starter, on a card grid ----
  var picked = [], cardsBox = document.getElementById("cards"), pick = document.getElementById("pick");
  var countedBox = document.getElementById("counted"), pegCount = document.getElementById("count-peg");
  var handSize = Number(root.getAttribute("data-hand") || 4);
  function countsCrib() { return !!(state && state.next && state.next.seat === me() && state.next.count === "crib"); }
  function refreshPick() {
    var buttons = cardsBox.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) {
      var at = picked.indexOf(buttons[i].getAttribute("data-card"));
      buttons[i].setAttribute("aria-pressed", at >= 0 ? "true" : "false");
      buttons[i].className = at === handSize ? "starter" : "";
    }
    var what = countsCrib() ? "crib" : "hand";
    pick.textContent = picked.length < handSize ? "Pick your " + what + ": " + (handSize - picked.length) + " more"
      : picked.length === handSize ? "Now the starter" : "Your " + what + " and the starter (outlined):";
  }
  cardsBox.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    var card = button.getAttribute("data-card"), at = picked.indexOf(card);
    if (at >= 0) picked.splice(at, 1);
    else if (picked.length <= handSize) picked.push(card);
    counted = null; countedBox.textContent = ""; pegCount.disabled = true;
    refreshPick();
    if (picked.length === handSize + 1) {
      var crib = countsCrib();
      fetch("/api/count?hand=" + picked.slice(0, handSize).join(",") + "&starter=" + picked[handSize] +
            (crib ? "&crib=1" : ""), { credentials: "same-origin" })
        .then(function (response) { return response.json(); })
        .then(function (body) {
          if (!body.ok) { countedBox.textContent = body.message; return; }
          counted = { total: body.total, said: body.said, act: crib ? "crib" : "hand" };
          countedBox.textContent = body.said + " (" + body.total + ")";
          pegCount.textContent = "Peg " + body.total + " as my " + counted.act;
          pegCount.disabled = false;
        });
    }
  });
  function clearCount() {
    picked = []; counted = null; countedBox.textContent = ""; pegCount.disabled = true;
    pegCount.textContent = "Peg it"; refreshPick();
  }
  document.getElementById("count-clear").addEventListener("click", clearCount);
  pegCount.addEventListener("click", function () {
    if (!counted) return;
    var sent = counted;
    pegCount.disabled = true;  // one tap pegs once; a refusal lets it be tapped again
    send(sent.act, sent.total, function () { spokenCount = sent.said; clearCount(); },
         function () { pegCount.disabled = false; });
  });

  // ---- this phone: keep the screen on, say entries aloud, unpair ----
  var awake = document.getElementById("awake"), awakeNote = document.getElementById("awake-note"), lock = null;
  var speak = document.getElementById("speak");
  awake.checked = localStorage.getItem("cribbage-awake") !== "off";
  speak.checked = localStorage.getItem("cribbage-speak") === "on";
  function keepAwake() {
    if (!("wakeLock" in navigator)) {
      awakeNote.textContent = "This browser keeps the screen on only for a page over https or on localhost: " +
        "set the phone's screen timeout longer instead.";
      return;
    }
    if (awake.checked && document.visibilityState === "visible" && lock === null) {
      navigator.wakeLock.request("screen").then(function (got) {
        lock = got; lock.addEventListener("release", function () { lock = null; });
      }).catch(function () { awakeNote.textContent = "The browser refused to keep the screen on."; });
    } else if (!awake.checked && lock !== null) { lock.release(); lock = null; }
  }
  awake.addEventListener("change", function () {
    localStorage.setItem("cribbage-awake", awake.checked ? "on" : "off"); keepAwake();
  });
  document.addEventListener("visibilitychange", keepAwake);
  speak.addEventListener("change", function () { localStorage.setItem("cribbage-speak", speak.checked ? "on" : "off"); });
  function speakText(text) {
    if (!speak.checked || !window.speechSynthesis) return;
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  }
  document.getElementById("unpair").addEventListener("click", function () {
    fetch("/api/phone/unpair", { method: "POST", credentials: "same-origin", headers: { "X-Phone-Token": token } })
      .then(function () { location.href = "/phone"; });
  });

  // ---- the live board ----
  // The live state in words beside its dot; a word said again is not written again.
  function liveShown(on, text) {
    if (!dot || !liveWord) return;
    dot.className = on ? "live-dot on" : "live-dot";
    if (liveWord.textContent !== text) liveWord.textContent = text;
  }
  if (window.EventSource) {
    var source = new EventSource("/events");
    liveShown(false, "connecting\u2026");
    source.onopen = function () { liveShown(true, "live"); };
    source.onerror = function () {  // the browser tries again unless the answer was no stream at all
      liveShown(false, source.readyState === EventSource.CLOSED ? "not live: reload the page" : "reconnecting\u2026");
    };
    source.onmessage = function (event) {
      var data = JSON.parse(event.data);
      if (data.html !== live.innerHTML) live.innerHTML = data.html;
      document.title = data.title;
      state = data.state;
      showState();
      if (data.said && data.said.key !== heard) {
        var first = heard === null;
        heard = data.said.key;
        if (first) return;  // what was said before the page opened is not said again
        var text = data.said.text, name = me();
        if (spokenCount && name && text.indexOf(name) === 0) {  // our own count: said as players say it
          text = name + ": " + spokenCount + "; " + text.slice(text.lastIndexOf(", ") + 2);
          spokenCount = null;
        }
        speakText(text);
      }
    };
  }
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(function () {});
  showState(); showDial(); refreshPick(); keepAwake();
})();
