// The sides' colours: the page comes in a palette of the LEDs (a class on the root element), the
// board's or the one this browser chose; the control at the foot of every page (hidden until this
// script runs) changes it at once and keeps the choice in a cookie, so the next page comes in it.
(function () {
  var NAMES = PALETTE_NAMES, root = document.documentElement;
  var select = document.getElementById("palette");
  if (!select) return;
  for (var i = 0; i < NAMES.length; i++) if (root.classList.contains("palette-" + NAMES[i])) select.value = NAMES[i];
  select.addEventListener("change", function () {
    for (var i = 0; i < NAMES.length; i++) root.classList.remove("palette-" + NAMES[i]);
    if (select.value !== "standard") root.classList.add("palette-" + select.value);
    document.cookie = "PALETTE_COOKIE=" + select.value + "; path=/; max-age=31536000; samesite=strict";
  });
  document.getElementById("palette-choice").hidden = false;
})();
