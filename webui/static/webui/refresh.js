/* Pages that follow play (home, a tournament): every data-refresh-seconds seconds, fetch the page
 * again and swap in its parts marked data-refresh (by id). The server renders them; nothing here
 * builds HTML. A page whose new copy no longer asks for refreshing stops. */
(function () {
  "use strict";
  var root = document.querySelector("[data-refresh-seconds]");
  if (!root || !window.fetch || !window.DOMParser) return;
  var seconds = parseFloat(root.getAttribute("data-refresh-seconds"));
  if (!(seconds > 0)) return;

  function refresh() {
    fetch(window.location.href, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      var fresh = new DOMParser().parseFromString(html, "text/html");
      document.querySelectorAll("[data-refresh]").forEach(function (part) {
        var replacement = part.id && fresh.getElementById(part.id);
        if (replacement) part.replaceWith(document.importNode(replacement, true));
      });
      var again = fresh.querySelector("[data-refresh-seconds]");
      if (again) setTimeout(refresh, seconds * 1000);
    }).catch(function () {
      setTimeout(refresh, seconds * 2000);
    });
  }
  setTimeout(refresh, seconds * 1000);
})();
