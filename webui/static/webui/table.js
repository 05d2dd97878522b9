// A person's table (webui/views/people.py): long-poll the seat's state; draw the decision waiting with the
// game's own renderer (ParlourViewer.drawView, as the replay viewer draws a step), the legal actions
// as labelled buttons (and, where a card in the hand names exactly one action, the card itself),
// the person's clock (the decision's seconds, then the bank); post the choice, poll again.
(function () {
  "use strict";
  const AGAIN_MS = 250;  // before asking again after an unchanged answer (the server waited already)
  let root, board, shown = null, clock = null, offset = 0, seats = [], ui = {};

  function $(id) { return document.getElementById(id); }

  function csrf() { return root.querySelector("input[name=csrfmiddlewaretoken]").value; }

  function show(state) {
    offset = typeof state.now === "number" ? state.now - Date.now() / 1000 : 0;  // the server's clock
    const decision = state.decision;
    if (state.status === "finished" || state.status === "aborted") {
      $("table-status").textContent = "The match is " + state.status + ".";
      const link = document.createElement("a");
      link.href = root.dataset.match;
      link.textContent = "Open the match and its replay";
      $("table-choices").replaceChildren(link);
      stopClock();
      return false;
    }
    if (!decision) {
      $("table-status").textContent = state.status === "scheduled" ? "The match is about to start…" : "The others are playing…";
      $("table-choices").replaceChildren();
      stopClock();
      shown = null;
      return true;
    }
    if (shown === decision.decision_id) return true;
    shown = decision.decision_id;
    clock = decision.clock || null;
    $("table-status").textContent = "Your turn: choose an action.";
    $("table-view").textContent = JSON.stringify(decision.observation, null, 2);
    window.ParlourViewer.drawView(board, {game: root.dataset.game, players: decision.players, seats: seats, ui: ui},
                                  decision.observation);
    const buttons = decision.labels.map(function (label, index) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.textContent = label;
      button.dataset.index = index;
      button.addEventListener("click", function () { answer(decision.decision_id, index); });
      return button;
    });
    $("table-choices").replaceChildren(...buttons);
    markPickableCards(decision);
    showMoves(decision.moves);
    tick();
    return true;
  }

  /** A card of the person's own panel that exactly one legal action names (a field of the action
   * is the card's id) is clickable: the card picks that action. The buttons stay. */
  function markPickableCards(decision) {
    board.querySelectorAll(".seat-panel.is-me .card[data-card-id]")
      .forEach(function (tile) {
        const id = tile.getAttribute("data-card-id");
        const matching = [];
        decision.legal_actions.forEach(function (action, index) {
          if (action && typeof action === "object" && Object.values(action).indexOf(id) >= 0) matching.push(index);
        });
        if (matching.length !== 1) return;
        tile.classList.add("pickable");
        tile.setAttribute("data-choice", String(matching[0]));
        tile.setAttribute("role", "button");
        tile.setAttribute("tabindex", "0");
        tile.title = decision.labels[matching[0]] + " (click the card)";
      });
  }

  function pickCard(event) {
    const tile = event.target.closest(".card.pickable[data-choice]");
    if (!tile || shown === null) return;
    if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    answer(shown, Number(tile.getAttribute("data-choice")));
  }

  /** What the person played so far in this match, the latest first (the relay's record). */
  function showMoves(moves) {
    const items = (moves || []).slice().reverse().map(function (move) {
      const item = document.createElement("li");
      item.textContent = move.label === null || move.label === undefined
        ? "No answer in time: the default action was played for you." : move.label;
      if (move.label === null || move.label === undefined) item.className = "table-log-default";
      return item;
    });
    if (!items.length) {
      items.push(document.createElement("li"));
      items[0].className = "table-log-none";
      items[0].textContent = "No move yet.";
    }
    $("table-log").replaceChildren(...items);
  }

  function answer(decisionId, index) {
    root.querySelectorAll("button.choice").forEach(function (b) { b.disabled = true; });
    board.querySelectorAll(".card.pickable").forEach(function (tile) { tile.classList.remove("pickable"); });
    fetch(root.dataset.answer, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
      body: JSON.stringify({decision_id: decisionId, index: index}),
    }).then(function (response) { return response.json(); }).then(function (body) {
      $("table-message").textContent = body.error || "";
      if (body.error) {
        shown = null;  // refused: the choices are offered again
      } else {
        stopClock();
        const chosen = root.querySelector('button.choice[data-index="' + index + '"]');
        $("table-status").textContent = "You played: " + (chosen ? chosen.textContent : "your choice") + ".";
      }
    });
  }

  function stopClock() {
    clock = null;
    $("table-clock").hidden = true;
  }

  /** The clock: the decision's own seconds counting down, then the bank's. */
  function tick() {
    if (!clock) return;
    const now = Date.now() / 1000 + offset;
    const element = $("table-clock");
    const inBank = now >= clock.free_until;
    element.hidden = false;
    element.classList.toggle("is-bank", inBank);
    element.querySelector(".table-clock-decision").textContent = inBank
      ? "Decision time over:" : Math.ceil(clock.free_until - now) + " s left for this decision";
    const bank = inBank ? clock.deadline - now : clock.deadline - clock.free_until;
    element.querySelector(".table-clock-bank").textContent = inBank
      ? "bank " + Math.max(0, Math.ceil(bank)) + " s left" : "(then your bank: " + Math.round(bank) + " s)";
  }

  /** A long poll: the server answers once the decision waiting or the match's status differs from
   * what the page shows (or after a while unchanged), so the next decision shows as it is published. */
  function poll(last) {
    const query = last ? "?after=" + (last.decision ? last.decision.decision_id : "") + "&status=" + last.status : "";
    fetch(root.dataset.state + query, {credentials: "same-origin"}).then(function (r) { return r.json(); })
      .then(function (state) {
        const same = last && state.status === last.status &&
          (state.decision ? state.decision.decision_id : null) === (last.decision ? last.decision.decision_id : null);
        if (show(state)) setTimeout(function () { poll(state); }, same ? AGAIN_MS : 0);
      })
      .catch(function () { setTimeout(function () { poll(last); }, AGAIN_MS * 4); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    root = $("table");
    if (!root) return;
    board = $("table-board");
    seats = JSON.parse($("table-seats").textContent || "[]");
    board.addEventListener("click", pickCard);
    board.addEventListener("keydown", pickCard);
    setInterval(tick, 250);
    poll();
  });
})();
