/* Parlour TV: when the featured match ends, show its end for a few seconds, then the next table.
 * The viewer announces the end with a "parlour:ended" event (viewer.js, showEnded). */
(function () {
  "use strict";
  var PAUSE_MS = 8000;
  document.addEventListener("parlour:ended", function () {
    var banner = document.getElementById("tv");
    if (!banner || banner.getAttribute("data-moving")) return;
    banner.setAttribute("data-moving", "1");
    banner.appendChild(document.createTextNode(" This match is over: the next table in a few seconds."));
    setTimeout(function () { window.location.assign(banner.getAttribute("data-next")); }, PAUSE_MS);
  });
})();
