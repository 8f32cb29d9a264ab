// The sides' colours: the page comes in the board's palette (the LEDs', a class on the root element);
// this browser's own choice, kept in localStorage, replaces it before the body is drawn. A small
// control at the foot of every page makes the choice.
(function () {
  var NAMES = PALETTE_NAMES, KEY = "cribbage-board.palette", root = document.documentElement;
  function current() {
    for (var i = 0; i < NAMES.length; i++) if (root.classList.contains("palette-" + NAMES[i])) return NAMES[i];
    return "standard";
  }
  function use(name) {
    for (var i = 0; i < NAMES.length; i++) root.classList.remove("palette-" + NAMES[i]);
    if (name !== "standard") root.classList.add("palette-" + name);
  }
  var chosen = null;
  try { chosen = localStorage.getItem(KEY); } catch (e) { /* storage refused: the board's palette */ }
  if (NAMES.indexOf(chosen) >= 0) use(chosen);

  document.addEventListener("DOMContentLoaded", function () {
    var footer = document.createElement("footer"), label = document.createElement("label");
    var select = document.createElement("select");
    footer.className = "palette";
    select.id = "palette";
    NAMES.forEach(function (name) {
      var option = document.createElement("option");
      option.value = name;
      option.textContent = name;
      select.appendChild(option);
    });
    select.value = current();
    select.addEventListener("change", function () {
      use(select.value);
      try { localStorage.setItem(KEY, select.value); } catch (e) { /* kept for this page only */ }
    });
    label.appendChild(document.createTextNode("Colours "));
    label.appendChild(select);
    footer.appendChild(label);
    document.body.appendChild(footer);
  });
})();
