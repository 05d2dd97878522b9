// A person's table (webui/views/people.py): poll the seat's state, show the decision waiting (the
// seat's own view, the legal actions as labelled buttons), post the choice, poll again.
(function () {
  "use strict";
  const POLL_MS = 700;
  let root, shown = null, deadline = 0;

  function $(id) { return document.getElementById(id); }

  function csrf() { return root.querySelector("input[name=csrfmiddlewaretoken]").value; }

  function show(state) {
    const decision = state.decision;
    if (state.status === "finished" || state.status === "aborted") {
      $("table-status").textContent = "The match is " + state.status + ".";
      $("table-choices").replaceChildren();
      const link = document.createElement("a");
      link.href = root.dataset.match;
      link.textContent = "Open the match and its replay";
      $("table-choices").append(link);
      $("table-clock").textContent = "";
      return false;
    }
    if (!decision) {
      $("table-status").textContent = state.status === "scheduled" ? "The match is about to start…" : "The others are playing…";
      $("table-choices").replaceChildren();
      $("table-clock").textContent = "";
      shown = null;
      return true;
    }
    if (shown === decision.decision_id) return true;
    shown = decision.decision_id;
    deadline = decision.deadline;
    $("table-status").textContent = "Your turn: choose an action.";
    $("table-view").textContent = JSON.stringify(decision.observation, null, 2);
    const buttons = decision.labels.map(function (label, index) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.textContent = label;
      button.addEventListener("click", function () { answer(decision.decision_id, index); });
      return button;
    });
    $("table-choices").replaceChildren(...buttons);
    return true;
  }

  function answer(decisionId, index) {
    root.querySelectorAll("button.choice").forEach(function (b) { b.disabled = true; });
    fetch(root.dataset.answer, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
      body: JSON.stringify({decision_id: decisionId, index: index}),
    }).then(function (response) { return response.json(); }).then(function (body) {
      $("table-message").textContent = body.error || "";
      if (body.error) shown = null;  // refused: the choices are offered again
    });
  }

  function tick() {
    if (shown === null) return;
    const left = Math.max(0, Math.round(deadline - Date.now() / 1000));
    $("table-clock").textContent = left + " s left";
  }

  function poll() {
    fetch(root.dataset.state, {credentials: "same-origin"}).then(function (r) { return r.json(); })
      .then(function (state) { if (show(state)) setTimeout(poll, POLL_MS); })
      .catch(function () { setTimeout(poll, POLL_MS * 3); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    root = $("table");
    if (!root) return;
    setInterval(tick, 500);
    poll();
  });
})();
