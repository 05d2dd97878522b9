/* Kuhn poker in the replay viewer: a game package's renderer (docs/viewer.md). It registers itself
 * with the viewer's core (webui/static/webui/viewer.js), which the match page loads first, and draws
 * with the core's kit only (no HTML parsed): each seat's card, chips in and score, this hand's
 * betting, and the finished hands with the cards a showdown showed. */
(function () {
  "use strict";
  var viewer = window.ParlourViewer;
  var { arr, obj, isNum, text, h, section, kv, row, empty, card, cardBack, statusLine, seatList } = viewer.kit;

  var SUIT = "\u2660";
  var ACTIONS = { check: "checks", bet: "bets 1", call: "calls", fold: "folds" };

  function kuhnCard(c, small) {
    c = obj(c);
    if (c.hidden || !c.id) return cardBack({ small: small, title: "a card face down" });
    return card({ id: c.id, name: c.name || c.id, value: c.value, symbol: SUIT, kind: "card", kindLabel: "rank " + text(c.rank),
      classes: ["kuhn-" + c.id], small: small });
  }
  /** The card a seat holds as this perspective may see it: its own view's, else the frame's. */
  function seatCard(ctx, seat) {
    var own = ctx.own(seat);
    return own ? arr(own.cards)[seat] : arr(ctx.view.cards)[seat];
  }
  function betting(ctx, history) {
    var list = h("ol", { class: "kuhn-betting" });
    arr(history).forEach(function (entry) {
      entry = obj(entry);
      list.appendChild(h("li", { class: "kuhn-bet kuhn-" + (ACTIONS[entry.action] ? entry.action : "other") },
        ctx.seatTag(entry.seat), " " + (ACTIONS[entry.action] || text(entry.action))));
    });
    return arr(history).length ? list : empty("no bet yet");
  }

  function renderKuhnPoker(ctx, board) {
    var v = ctx.view;
    var stakes = arr(v.stakes);
    var scores = arr(v.scores);
    board.appendChild(statusLine(
      kv("Hand", (isNum(v.round) ? v.round : "?") + " / " + (isNum(v.hands) ? v.hands : "?")),
      kv("Phase", v.phase),
      kv("First to act", isNum(v.first) ? ctx.name(v.first) : "—"),
      kv("Pot", isNum(v.pot) ? v.pot + " chips" : "—"),
      kv("To move", seatList(ctx, v.to_move))
    ));

    var table = section("The table", "kuhn-table seat-panels");
    for (var seat = 0; seat < 2; seat++) {
      var panel = ctx.seatPanel(seat);
      panel.appendChild(ctx.seatHeader(seat, kv("Score", isNum(scores[seat]) ? scores[seat] : 0, "score"),
        v.first === seat ? h("span", { class: "badge", text: "acts first" }) : null));
      panel.appendChild(row("hand", h("span", { class: "row-label", text: "Card" }), kuhnCard(seatCard(ctx, seat)),
        h("span", { class: "kuhn-stake", text: (isNum(stakes[seat]) ? stakes[seat] : 1) + " in the pot" })));
      table.appendChild(panel);
    }
    board.appendChild(table);

    var now = section("This hand's betting", "kuhn-now");
    now.appendChild(betting(ctx, v.history));
    board.appendChild(now);

    var rounds = arr(v.rounds);
    if (rounds.length) {
      var done = section("Hands played (" + rounds.length + ", the latest first)", "kuhn-rounds");
      rounds.slice(-8).reverse().forEach(function (r) {
        r = obj(r);
        var points = arr(r.points);
        done.appendChild(h("div", { class: "kuhn-hand", "data-round": r.round },
          h("span", { class: "kuhn-hand-number", text: "Hand " + text(r.round) }),
          row("", arr(r.cards).map(function (c, s) {
            return h("figure", { class: "played" }, kuhnCard(c, true), h("figcaption", null, ctx.seatTag(s)));
          })),
          betting(ctx, r.history),
          h("span", { class: "kuhn-outcome", text: (r.end === "fold" ? "fold: " : "showdown: ") + ctx.name(r.winner) +
            " wins " + (isNum(points[r.winner]) ? points[r.winner] : "?") })));
      });
      board.appendChild(done);
    }
  }

  viewer.register("kuhn-poker", {
    render: renderKuhnPoker,
    scoreKey: "scores",
    marks: [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Hand " + text(v.round); } },
    ],
    justMoved: null,
  });
})();
