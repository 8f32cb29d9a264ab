// A seat's phone: each tap goes to the board (through the web view) with an id of its own, and the
// board's answer is shown as the board says it. live.js keeps the live board and hands this script each new one,
// with the acts each seat may use now (firmware/wire/acts.py): a key is enabled when its act is among them.
(function () {
  var root = document.getElementById("phone");
  if (!root) return;
  var seat = Number(root.getAttribute("data-seat")), token = root.getAttribute("data-token");
  var state = JSON.parse(root.getAttribute("data-state") || "null");
  var acts = JSON.parse(root.getAttribute("data-acts") || "[]");
  var answer = document.getElementById("answer"), status = document.getElementById("status");
  var dialShown = document.getElementById("dial"), dial = "";
  var heard = null, counted = null;
  var breakdowns = {}, heardEntries = {};  // by the entry's number in the game: what to say, what the board said
  var pegging = false;  // a checked count is on its way to the board

  function me() { return state && state.seats ? state.seats[seat] : null; }
  function say(text, kind) { answer.textContent = text; answer.className = "answer " + (kind || ""); }

  // The glance: every side's name and score (this seat's marked), then whose count is next or who won.
  var sidesList = document.getElementById("sides");
  function showSides(name) {
    var sides = state && state.sides ? state.sides : [];
    while (sidesList.children.length > sides.length) sidesList.removeChild(sidesList.lastChild);
    for (var i = 0; i < sides.length; i++) {
      var item = sidesList.children[i];
      if (!item) {
        item = document.createElement("li");
        item.innerHTML = '<bdi class="who"></bdi> <span class="pts"></span>';
        sidesList.appendChild(item);
      }
      item.className = sides[i].seats.indexOf(name) >= 0 ? "mine" : "";
      item.querySelector(".who").textContent = sides[i].name;
      item.querySelector(".pts").textContent = sides[i].score;
    }
  }
  var AFTER_THE_GAME = "Next: New game, under More";  // what the page's keys still do once a game is won
  function showState() {
    var name = me(), keys = root.querySelectorAll("button[data-act]");
    for (var i = 0; i < keys.length; i++) keys[i].disabled = acts.indexOf(keys[i].getAttribute("data-act")) < 0;
    showSides(name);
    if (!state || !state.variant) { status.textContent = "No game on the board yet."; return; }
    if (name === null || name === undefined) { status.textContent = "This game has no player on your seat."; return; }
    if (state.winner) status.textContent = state.winner + " won" + (state.result && state.result !== "win" ?
      ", a " + state.result.replace("-", " ") : "") + ". " + AFTER_THE_GAME;  // as ResultKind.words says it: "Red won, a skunk"
    else if (state.next) status.textContent = "Next count: " + state.next.seat + " " + state.next.count +
      (state.phase === "heels" || state.phase === "play" ? " (after the play)" : "");
    else status.textContent = "";
  }

  // The views: the scoring keys, check my count, which two to throw, and the game and this phone;
  // one shows at a time, the glance above them all. The page comes showing the scoring keys.
  var views = root.querySelectorAll("button[data-view]"), sections = root.querySelectorAll("[data-shows]");
  function showView(view) {
    for (var i = 0; i < views.length; i++) views[i].setAttribute("aria-pressed", views[i].getAttribute("data-view") === view ? "true" : "false");
    for (var j = 0; j < sections.length; j++) sections[j].hidden = sections[j].getAttribute("data-shows") !== view;
    window.scrollTo(0, 0);
  }
  for (var v = 0; v < views.length; v++) {
    views[v].addEventListener("click", function (event) { showView(event.currentTarget.getAttribute("data-view")); });
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
        if (body.ok) {
          say(body.text, "accepted");
          if (navigator.vibrate) navigator.vibrate(40);  // a buzz the player feels: the board took it
          if (done) done(body);
          return;
        }
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
      else {
        var typed = (dial === "19" || dial.length >= 2 ? "" : dial) + digit;
        if (Number(typed) > 29) {  // no count is more: said, and the number on the dial stays as it was
          say("No count is " + typed + ": 29 is the most", "refused");
          return;
        }
        dial = typed;
      }
      showDial();
      return;
    }
    if (act === null) return;
    var question = button.getAttribute("data-confirm");
    if (question && !window.confirm(question)) return;
    var fixed = button.hasAttribute("data-points");
    var fromDial = !fixed && ["heels", "undo", "redo", "go", "new-game", "new-match"].indexOf(act) < 0;
    var points = fixed ? Number(button.getAttribute("data-points")) : fromDial ? Number(dial || 0) : 0;
    if (fromDial && (act === "hand" || act === "crib") && dial === "19") points = 0;  // nineteen: a hand of no points
    // The dial is emptied as its number is sent, so a fast next digit starts the next number; refused,
    // the number comes back to the dial if nothing was typed since.
    var sent = dial;
    if (fromDial) { dial = ""; showDial(); }
    send(act, points, null, function () { if (fromDial && dial === "") { dial = sent; showDial(); } });
  });

  // ---- check my count: the hand, then the starter, on a card grid ----
  var picked = [], cardsBox = document.getElementById("cards"), pick = document.getElementById("pick");
  var countedBox = document.getElementById("counted"), pegCount = document.getElementById("count-peg");
  var handSize = Number(root.getAttribute("data-hand") || 4), countCoach = document.getElementById("count-coach");
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
    counted = null; countedBox.textContent = ""; pegCount.disabled = true; countCoach.textContent = "";
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
          if (!crib) coachVerdict(picked.slice(0, handSize));
          pegCount.textContent = "Peg " + body.total + " as my " + counted.act;
          pegCount.disabled = false;
        });
    }
  });
  function clearCount() {
    picked = []; counted = null; countedBox.textContent = ""; pegCount.disabled = true;
    pegCount.textContent = "Peg it"; countCoach.textContent = ""; refreshPick();
  }
  document.getElementById("count-clear").addEventListener("click", clearCount);
  pegCount.addEventListener("click", function () {
    if (!counted) return;
    var sent = counted;
    pegCount.disabled = true;  // one tap pegs once; a refusal lets it be tapped again
    pegging = true;
    send(sent.act, sent.total, function (body) {
      pegging = false;
      if (body.n !== undefined) { breakdowns[body.n] = sent.said; speakEntry(body.n); }
      clearCount();
    }, function () { pegging = false; pegCount.disabled = false; });
  });

  // ---- which two to throw: the six cards dealt on a grid, the coach's ranking ----
  var coachPicked = [], coachBox = document.getElementById("coach-cards"), coachPick = document.getElementById("coach-pick");
  var coachTable = document.getElementById("coach-table"), coachRanks = document.getElementById("coach-ranks");
  var coachNote = document.getElementById("coach-note"), coachAsked = 0, coachChosen = false;
  var coachVerdictLine = document.getElementById("coach-verdict");
  var coachDealer = document.getElementById("coach-dealer"), coachPone = document.getElementById("coach-pone");
  var SUIT_SIGNS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  function shown(cards) {
    return cards.map(function (card) { return card.slice(0, -1) + SUIT_SIGNS[card.slice(-1)]; }).join(" ");
  }
  // A figure as scorer.figures writes it: one minus sign (U+2212), "+" when asked, never "\u22120.0".
  function figure(value, places, plus) {
    var text = Math.abs(value).toFixed(places);
    if (Number(text) === 0) return text;
    return value < 0 ? "\u2212" + text : (plus ? "+" + text : text);
  }
  function cribNet(discard, dealer) { return dealer ? discard.crib.average : -discard.crib.average; }
  // The net and what makes it, each named, as scorer.coach.Discard.figures says them.
  function figures(discard, dealer) {
    return figure(discard.expected, 1) + " net on average (hand " + figure(discard.hand.average, 1) +
      ", crib " + figure(cribNet(discard, dealer), 1, true) + ")";
  }
  function coachSide() {  // the board says who deals, until the player chooses
    if (coachChosen || !state || !state.dealer || coachDealer.checked === (state.dealer === me())) return;
    coachDealer.checked = state.dealer === me(); coachPone.checked = !coachDealer.checked;
    if (coachPicked.length === 6) askCoach();
  }
  function cell(row, text, small, kind) {
    var td = document.createElement("td");
    td.textContent = text;
    if (kind) td.className = kind;
    if (small) { var note = document.createElement("small"); note.textContent = small; td.appendChild(note); }
    row.appendChild(td);
  }
  function showRanking(body) {
    coachRanks.textContent = "";
    body.discards.forEach(function (discard, i) {
      var row = document.createElement("tr");
      if (i === 0) row.className = "best";
      cell(row, shown(discard.throw)); cell(row, shown(discard.keep));
      cell(row, figure(discard.expected, 1), "", "n");
      cell(row, figure(discard.hand.average, 1), discard.hand.min + "\u2013" + discard.hand.max, "n");
      cell(row, figure(cribNet(discard, body.dealer), 1, true), "", "n");
      coachRanks.appendChild(row);
    });
    coachTable.hidden = false;
    coachVerdictLine.textContent = body.verdict; coachVerdictLine.hidden = false;
    var variant = state && state.variant && state.variant !== "six-card" ? "This game is " + state.variant + ". " : "";
    coachNote.textContent = variant + "Net: the hand's average " + (body.dealer ? "plus the crib's (yours)" :
      "less the crib's (theirs)") + ", over the " + body.starters + " starters and the crib's " + body.cribs_per_starter +
      " possible throws from the opponent with each (" + body.assumes + ").";
  }
  // After the show: the hand just checked, against the coach's ranking of the six cards picked above.
  var coached = null;
  function coachVerdict(hand) {
    if (!coached) return;
    var kept = hand.map(function (card) { return card.replace(/^T/, "10"); }).sort().join(" ");
    var best = coached.discards[0];
    coached.discards.forEach(function (discard) {
      if (discard.keep.slice().sort().join(" ") !== kept) return;
      countCoach.textContent = "Keeping " + shown(discard.keep) + ": " + figures(discard, coached.dealer) +
        (discard === best ? ", the best of the 15 throws." :
        "; keeping " + shown(best.keep) + " was best at " + figure(best.expected, 1) + " net.");
    });
  }
  function askCoach() {
    var asked = ++coachAsked;
    coachNote.textContent = "Counting every starter and crib\u2026";
    fetch("/api/coach?cards=" + coachPicked.join(",") + "&dealer=" + (coachDealer.checked ? "1" : "0"),
          { credentials: "same-origin", headers: { "X-Phone-Token": token } })
      .then(function (response) { return response.json(); })
      .then(function (body) {
        if (asked !== coachAsked) return;  // a newer question is on its way
        if (!body.ok) { coachNote.textContent = body.message; return; }
        coached = body;
        showRanking(body);
      })
      .catch(function () { if (asked === coachAsked) coachNote.textContent = "No answer from the web view: try again"; });
  }
  function refreshCoach() {
    var buttons = coachBox.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++)
      buttons[i].setAttribute("aria-pressed", coachPicked.indexOf(buttons[i].getAttribute("data-card")) >= 0 ? "true" : "false");
    coachPick.textContent = coachPicked.length < 6 ? "Pick the six cards dealt: " + (6 - coachPicked.length) + " more"
      : "Best first, by the net each throw keeps (under the cards):";
    if (coachPicked.length < 6) {
      coachAsked += 1; coachTable.hidden = true; coachRanks.textContent = ""; coachNote.textContent = "";
      coachVerdictLine.hidden = true; coachVerdictLine.textContent = "";
    }
    else askCoach();
  }
  coachBox.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    var card = button.getAttribute("data-card"), at = coachPicked.indexOf(card);
    if (at >= 0) coachPicked.splice(at, 1);
    else if (coachPicked.length < 6) coachPicked.push(card);
    else return;
    refreshCoach();
  });
  [coachDealer, coachPone].forEach(function (radio) {
    radio.addEventListener("change", function () { coachChosen = true; if (coachPicked.length === 6) askCoach(); });
  });
  document.getElementById("coach-clear").addEventListener("click", function () { coachPicked = []; refreshCoach(); });

  // ---- this phone: keep the screen on, say entries aloud, unpair ----
  var awake = document.getElementById("awake"), awakeNote = document.getElementById("awake-note"), lock = null;
  var speak = document.getElementById("speak");
  // Where the page has no Wake Lock API (plain http, as at the table), a silent video kept playing keeps
  // the screen on; browsers let it play once the player has tapped the page, so each tap tries again.
  var video = null;
  function keepAwakeByVideo() {
    if (!awake.checked) { if (video) video.pause(); awakeNote.textContent = ""; return; }
    if (!video) {
      video = document.createElement("video");
      video.muted = true; video.loop = true; video.playsInline = true;
      video.setAttribute("muted", ""); video.setAttribute("playsinline", ""); video.setAttribute("aria-hidden", "true");
      video.className = "awake-video";
      ["webm", "mp4"].forEach(function (kind) {
        var source = document.createElement("source");
        source.src = "/awake." + kind; source.type = "video/" + kind;
        video.appendChild(source);
      });
      document.body.appendChild(video);
    }
    if (document.visibilityState !== "visible" || !video.paused) return;
    var playing = video.play();
    if (!playing || !playing.then) return;
    playing.then(function () {
      awakeNote.textContent = "The screen stays on while this page is open.";
    }).catch(function () {
      awakeNote.textContent = "Tap the page once to keep the screen on. If it still locks, set the phone's screen timeout longer.";
    });
  }
  document.addEventListener("click", function () { if (!("wakeLock" in navigator)) keepAwakeByVideo(); });
  function keepAwake() {
    if (!("wakeLock" in navigator)) { keepAwakeByVideo(); return; }
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
  // Each entry is said once at a table: by the phone of the seat it is for, with its count's breakdown
  // when this phone checked it, matched by the entry's number, never by which news came first.
  function speakEntry(n) {
    var said = heardEntries[n];
    if (!said) return;  // the board's live event for it has not come yet: it is said when it does
    if (breakdowns[n] === undefined && said.waiting) return;  // the tap's answer, with the breakdown, is due
    if (said.seat === me()) {
      var text = said.text;
      if (breakdowns[n] !== undefined) text = said.seat + ": " + breakdowns[n] + "; " + text.slice(text.lastIndexOf(", ") + 2);
      speakText(text);
    }
    delete heardEntries[n]; delete breakdowns[n];
  }
  function speakText(text) {
    if (!speak.checked || !window.speechSynthesis) return;
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  }
  document.getElementById("unpair").addEventListener("click", function () {
    if (!window.confirm("Unpair this phone? Pairing it again takes the board's menu and its QR code.")) return;
    fetch("/api/phone/unpair", { method: "POST", credentials: "same-origin", headers: { "X-Phone-Token": token } })
      .then(function () { location.href = "/phone"; });
  });

  // ---- the live board: live.js keeps it and says the live state; each new board comes here too ----
  document.addEventListener("board", function (event) {
    var data = event.detail;
    state = data.state;
    acts = (data.acts && data.acts[seat]) || [];
    showState(); coachSide();
    if (data.said && data.said.key !== heard) {
      var first = heard === null;
      heard = data.said.key;
      if (first || data.said.n === null || data.said.n === undefined) return;  // said before the page opened
      var n = data.said.n, mine = data.said.seat === me();
      // A count this phone is pegging waits a moment for the board's answer, which carries its breakdown.
      heardEntries[n] = { text: data.said.text, seat: data.said.seat, waiting: mine && pegging };
      if (heardEntries[n].waiting) setTimeout(function () { if (heardEntries[n]) { heardEntries[n].waiting = false; speakEntry(n); } }, 1500);
      else speakEntry(n);
    }
  });
  showState(); showDial(); refreshPick(); coachSide(); refreshCoach();
  // What drawing the page does not need comes in a task of its own, after this one: this phone's settings
  // (localStorage's first read waits on the browser), keeping the screen on, the service worker. A setting
  // changed before then is already stored.
  setTimeout(function () {
    awake.checked = localStorage.getItem("cribbage-awake") !== "off";
    speak.checked = localStorage.getItem("cribbage-speak") === "on";
    keepAwake();
    if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(function () {});
  }, 0);
})();
