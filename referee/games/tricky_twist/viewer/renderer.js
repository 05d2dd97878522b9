/* Tricky Twist in the replay viewer: its board, score key, jumps and moved cards (docs/viewer.md).
 * A game package's renderer: it registers itself with the viewer's core (webui/static/webui/viewer.js),
 * which the match page loads first; the DOM is built with the core's kit only (no HTML parsed). */
(function () {
  "use strict";
  var viewer = window.ParlourViewer;
  var { arr, obj, isNum, text, compact, cardName, h, section, kv, row, empty, card, cardBack, backs,
    scoreTable, statusLine, seatList, topCardId } = viewer.kit;

  var TT_SYMBOL = { moon: "\u263d", sun: "\u2600", rain: "\u2614", smile: "\u263a" };
  var TT_PHASES = { reserve: "Reserve picks", draw: "Reserve draws", play: "Trick", bonus: "Bonus card for a 7",
    take_back: "Take back", round_end: "Round end", over: "Match over" };

  function ttCard(c, small, covered) {
    c = obj(c);
    if (c.hidden) return cardBack({ small: small });
    var classes = c.bonus_icon ? ["bonus-icon"] : [];
    if (covered) classes.push("covered");
    return card({
      id: c.id, name: c.name || c.id, colour: c.family, kind: c.kind || "number",
      kindLabel: c.family || c.kind || "", value: c.value, symbol: TT_SYMBOL[c.family] || "",
      classes: classes, note: c.bonus_icon ? "\u2605 bonus" : null, small: small,
    });
  }
  function ttBonus(id, textMap, small, cls) {
    // this round's face of a variable card (the view's bonus.text), else the page's card texts
    return card({ id: id, name: String(id).replace(/_/g, " "), kind: "bonus", kindLabel: "bonus",
      text: textMap && textMap[id] ? String(textMap[id]) : null, classes: cls ? [cls] : null, small: small,
      value: "B" });
  }
  function renderTrickyTwist(ctx, board) {
    var v = ctx.view;
    var n = ctx.players();
    var bonus = obj(v.bonus);
    var textMap = obj(bonus.text);
    var scoring = obj(v.scoring_card);
    board.appendChild(statusLine(
      kv("Round", isNum(v.round) ? v.round + 1 + " / " + n : "?"),
      kv("Phase", TT_PHASES[v.phase] || v.phase),
      isNum(v.reserve_step) ? kv("Reserve pick", v.reserve_step + 1 + " / 5") : null,
      kv("First player", isNum(v.first_player) ? ctx.name(v.first_player) : "—"),
      kv("Leader", isNum(v.leader) ? ctx.name(v.leader) : "—"),
      isNum(v.turn) ? kv("Turn", ctx.name(v.turn)) : null,
      kv("To move", seatList(ctx, v.to_move))
    ));
    var sc = section("Scoring card", "tt-scoring");
    sc.appendChild(h("p", null, h("strong", { text: String(scoring.id || "—").replace(/_/g, " ") }),
      scoring.text ? " — " + scoring.text : "", scoring.framed ? " (framed)" : " (unframed)"));
    board.appendChild(sc);

    // the trick on the table
    var tr = section("Trick on the table", "tt-trick trick");
    var plays = arr(v.trick);
    if (plays.length) {
      tr.appendChild(row("", plays.map(function (p) {
        p = obj(p);
        return h("figure", { class: "played" }, ttCard(p.card), h("figcaption", null, ctx.seatTag(p.seat)));
      })));
    } else tr.appendChild(empty("no card played yet"));
    if (arr(v.draws).length) tr.appendChild(h("p", { class: "note", text: "Drew from the reserve before this trick: " + seatList(ctx, v.draws) }));
    board.appendChild(tr);

    // bonus cards
    var b = section("Bonus cards (" + (bonus.face || "?") + " face)", "tt-bonus");
    b.appendChild(row("", h("span", { class: "row-label", text: "Available" }),
      arr(bonus.available).length ? arr(bonus.available).map(function (id) {
        return ttBonus(id, textMap, true);
      }) : empty()));
    if (arr(bonus.spent).length) b.appendChild(row("", h("span", { class: "row-label", text: "Spent" }),
      arr(bonus.spent).map(function (id) {
        return ttBonus(id, textMap, true, "spent");
      })));
    var legend = h("dl", { class: "bonus-legend" });
    Object.keys(textMap).forEach(function (id) {
      legend.appendChild(h("dt", { text: id.replace(/_/g, " ") }));
      legend.appendChild(h("dd", { text: text(textMap[id]) }));
    });
    b.appendChild(h("details", null, h("summary", { text: "What the Bonus cards do" }), legend));
    board.appendChild(b);

    // seats
    var seats = section("Players", "tt-seats seat-panels");
    var totals = arr(v.totals);
    for (var seat = 0; seat < n; seat++) {
      var panel = ctx.seatPanel(seat);
      var own = ctx.own(seat);
      panel.appendChild(ctx.seatHeader(seat, kv("Stars", isNum(totals[seat]) ? totals[seat] : 0, "score"),
        v.leader === seat ? h("span", { class: "badge", text: "leader" }) : null));
      // hand
      var hand;
      if (own && Array.isArray(own.hand)) {
        hand = own.hand.length ? own.hand.map(function (c) {
          return ttCard(c);
        }) : [empty("empty hand")];
      } else {
        var known = arr(arr(v.known_in_hand)[seat]);
        var count = arr(v.hand_counts)[seat];
        hand = known.map(function (c) {
          return ttCard(c);
        }).concat(backs((isNum(count) ? count : 0) - known.length));
        if (!hand.length) hand = [empty("empty hand")];
      }
      panel.appendChild(row("hand", h("span", { class: "row-label", text: "Hand" }), hand));
      // reserve
      var reserve;
      if (own && Array.isArray(own.reserve) && own.reserve.length) {
        reserve = own.reserve.map(function (c) {
          return ttCard(c, true);
        });
      } else {
        reserve = backs(arr(v.reserve_counts)[seat], true);
      }
      if (own && own.pending_pick) reserve.push(h("span", { class: "row-label", text: "picking" }), ttCard(own.pending_pick, true));
      panel.appendChild(row("reserve", h("span", { class: "row-label", text: "Reserve" }), reserve.length ? reserve : empty()));
      // tricks and false tricks
      var piles = arr(arr(v.tricks)[seat]);
      panel.appendChild(row("tricks", h("span", { class: "row-label", text: "Tricks (" + piles.length + ")" }),
        piles.length ? piles.map(function (pile) {
          // a pile fanned: each covered card a strip with its name, the top card whole below them
          return h("div", { class: "pile" }, arr(pile).map(function (c, i) {
            return ttCard(c, true, i < arr(pile).length - 1);
          }));
        }) : empty()));
      var falses = arr(arr(v.false_tricks)[seat]);
      panel.appendChild(row("false-tricks", h("span", { class: "row-label", text: "False tricks (" + falses.length + ")" }),
        falses.length ? falses.map(function (c) {
          return ttCard(c, true);
        }) : empty()));
      var held = arr(arr(bonus.held)[seat]);
      panel.appendChild(row("bonus-held", h("span", { class: "row-label", text: "Bonus" }),
        held.length ? held.map(function (id) {
          return ttBonus(id, textMap, true);
        }) : empty()));
      if (own && (arr(own.round_end_steps).length || arr(own.my_choices).length)) {
        panel.appendChild(h("p", { class: "note", text: "Round-end steps: " + (arr(own.round_end_steps).join(", ") || "—") +
          (arr(own.my_choices).length ? " · choices so far: " + compact(own.my_choices) : "") }));
      }
      seats.appendChild(panel);
    }
    board.appendChild(seats);

    // this round's tricks
    var log = arr(v.log);
    if (log.length) {
      var l = section("This round's tricks (" + log.length + ")", "tt-log");
      var list = h("ol", { class: "trick-log", start: Math.max(1, log.length - 3) });
      log.slice(-4).forEach(function (rec) {
        rec = obj(rec);
        var item = h("li", { class: "trick-record" });
        item.appendChild(row("", arr(rec.plays).map(function (p) {
          p = obj(p);
          return h("figure", { class: "played" }, ttCard(p.card, true), h("figcaption", null, ctx.seatTag(p.seat)));
        })));
        var notes = ["won by " + (isNum(rec.winner) ? ctx.name(rec.winner) : "—")];
        arr(rec.false_tricks).forEach(function (f) {
          notes.push(ctx.name(obj(f).seat) + " takes back " + text(obj(obj(f).card).name) + " as a false trick");
        });
        arr(rec.bonus).forEach(function (x) {
          notes.push(ctx.name(obj(x).seat) + " bonus: " + (obj(x).bonus ? cardName(obj(x).bonus) : "declined"));
        });
        arr(rec.take_back).forEach(function (x) {
          notes.push(ctx.name(obj(x).seat) + " takes back " + (obj(x).card ? text(obj(obj(x).card).name) : "nothing"));
        });
        item.appendChild(h("p", { class: "note", text: notes.join(" · ") }));
        list.appendChild(item);
      });
      l.appendChild(list);
      board.appendChild(l);
    }

    // finished rounds
    var rounds = arr(v.rounds);
    if (rounds.length) {
      var r = section("Rounds", "tt-rounds");
      var rows = [];
      rounds.forEach(function (rd) {
        rd = obj(rd);
        rows.push({ label: "Round " + (isNum(rd.round) ? rd.round + 1 : "?") + " (" + String(rd.scoring_card || "").replace(/_/g, " ") + ")",
          values: arr(rd.stars) });
      });
      rows.push({ label: "Total", values: totals });
      r.appendChild(scoreTable(ctx, "Stars", rows, n));
      board.appendChild(r);
    }
  }


  // the card just played on the trick
  function justMoved(before, now) {
    return arr(now.trick).length > arr(before.trick).length ? [topCardId(now.trick)] : [];
  }

  viewer.register("tricky-twist", {
    render: renderTrickyTwist,
    scoreKey: "totals",
    marks: [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + (v.round + 1); } },
      { name: "trick", key: function (v) { return v.round + "|" + (v.phase === "reserve" ? "reserve" : arr(v.log).length); },
        label: function (v) { return v.phase === "reserve" ? "Reserve picks" : "Trick " + (arr(v.log).length + 1); } },
    ],
    justMoved: justMoved,
  });
})();
