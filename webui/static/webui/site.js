// The site's own small behaviours, from a static file (the Content Security Policy allows no
// inline script or handler attribute): a <select data-autosubmit> submits its form when changed.
document.addEventListener("change", function (event) {
  var target = event.target;
  if (target && target.matches && target.matches("select[data-autosubmit]") && target.form) target.form.submit();
});
