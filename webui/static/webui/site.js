// The site's own small behaviours, from a static file (the Content Security Policy allows no
// inline script or handler attribute).

// A <select data-autosubmit> submits its form when changed.
document.addEventListener("change", function (event) {
  var target = event.target;
  if (target && target.matches && target.matches("select[data-autosubmit]") && target.form) target.form.submit();
});

// At phone widths the site's menu folds behind its button (site.css); the class "js" tells the CSS
// that the button works, so without JavaScript the menu simply stays open.
document.documentElement.classList.add("js");
document.addEventListener("click", function (event) {
  var button = event.target && event.target.closest ? event.target.closest("header.top .menu-toggle") : null;
  if (!button) return;
  var header = button.closest("header.top");
  var open = !header.classList.contains("menu-open");
  header.classList.toggle("menu-open", open);
  button.setAttribute("aria-expanded", open ? "true" : "false");
});
