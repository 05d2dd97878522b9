/* Bszzzz! in the replay viewer: its board, score key, jumps and moved cards (docs/viewer.md).
 * A game package's renderer: it registers itself with the viewer's core (webui/static/webui/viewer.js),
 * which the match page loads first; the DOM is built with the core's kit only (no HTML parsed). */
(function () {
  "use strict";
  var viewer = window.ParlourViewer;
  var { has, arr, obj, isNum, safeToken, text, cardName, h, section, kv, row, empty, card, cardBack, backs,
    scoreTable, statusLine, seatList, topCardId } = viewer.kit;

  var BZ_SYMBOL = { fly: "\u2022", mosquito: "\u2020", bee: "\u2740", butterfly: "\u2766", web: "\u2638", swatter: "\u2298" };
  var BZ_EFFECT = { trick: "added to the trick", web: "web: trick discarded", "swat-trick": "swatter: trick taken",
    "swat-useful": "swatter: useful insects taken", none: "nothing applied" };

  function bzCard(c, small, extra) {
    c = obj(c);
    if (c.hidden) return cardBack({ small: small });
    var value = isNum(c.capture) ? (c.capture > 0 ? "+" + c.capture : String(c.capture)) : "";
    return card({
      id: c.id, name: c.name || c.id, colour: c.colour, kind: c.kind, value: value,
      symbol: BZ_SYMBOL[c.name] || "", small: small,
      note: isNum(c.penalty) && c.penalty ? "penalty " + c.penalty : null,
      classes: extra && extra.classes,
    });
  }
  function bzWindow(ctx, w, index, latest) {
    w = obj(w);
    var el = h("div", { class: "bz-window" + (latest ? " latest" : ""), "data-window": index });
    el.appendChild(h("div", { class: "bz-window-head" },
      h("span", { class: "bz-window-number", text: "Window " + (index + 1) }),
      isNum(w.turn) ? h("span", null, " · turn ", ctx.seatTag(w.turn)) : null,
      " · on the table: ", w.top ? bzCard(w.top, true) : h("span", { class: "viewer-empty", text: "empty trick" }),
      h("span", { class: "bz-effect effect-" + (safeToken(w.effect) || "x"), text: " → " + (BZ_EFFECT[w.effect] || text(w.effect)) +
        (isNum(w.by) ? " by " + ctx.name(w.by) : "") })));
    var plays = h("div", { class: "bz-plays" });
    arr(w.plays).forEach(function (p) {
      p = obj(p);
      var outcome = safeToken(p.outcome) || "unknown";
      plays.appendChild(h("div", { class: "bz-play outcome-" + outcome, "data-seat": p.seat, "data-outcome": outcome },
        ctx.seatTag(p.seat),
        p.card ? bzCard(p.card, true) : h("span", { class: "bz-pass", text: "pass" }),
        h("span", { class: "badge outcome", text: outcome })));
    });
    el.appendChild(plays);
    return el;
  }
  function renderBszzzz(ctx, board) {
    var v = ctx.view;
    var n = ctx.players();
    board.appendChild(statusLine(
      kv("Round", v.round),
      kv("Phase", v.phase),
      kv("Dealer", isNum(v.dealer) ? ctx.name(v.dealer) : "—"),
      isNum(v.turn) ? kv("Turn", ctx.name(v.turn)) : kv("Turn", "none (Total)"),
      isNum(v.priority_start) ? kv("Priority from", ctx.name(v.priority_start)) : null,
      kv("Idle windows", v.idle_windows),
      kv("Asked", seatList(ctx, v.to_move))
    ));

    // the trick on the table
    var t = section("Trick on the table (bottom to top)", "bz-trick trick");
    var trick = arr(v.trick);
    if (trick.length) {
      t.appendChild(row("", trick.map(function (p, i) {
        p = obj(p);
        return h("figure", { class: "played" + (i === trick.length - 1 ? " top" : "") }, bzCard(p.card),
          h("figcaption", null, ctx.seatTag(p.seat)));
      })));
    } else t.appendChild(empty("empty trick"));
    board.appendChild(t);

    // the windows of this round
    var windows = arr(v.windows);
    var ws = section("Reaction windows this round (" + windows.length + ")", "bz-windows");
    var shown = 6;
    if (windows.length > shown) {
      // the earlier windows are drawn only when asked for (a round can run to a hundred windows)
      var earlier = h("details", { class: "bz-earlier" }, h("summary", { text: windows.length - shown + " earlier windows" }));
      var ui = ctx.viewer.ui;
      var fill = function () {
        if (earlier.open && earlier.childNodes.length < 2) {
          windows.slice(0, windows.length - shown).forEach(function (w, i) {
            earlier.appendChild(bzWindow(ctx, w, i, false));
          });
        }
      };
      earlier.setAttribute("data-redraw", ""); // its listener is this drawing's (the core's morph replaces it)
      earlier.addEventListener("toggle", function () {
        ui.bzEarlierOpen = earlier.open;
        fill();
      });
      if (ui.bzEarlierOpen) {
        earlier.open = true;
        fill();
      }
      ws.appendChild(earlier);
    }
    windows.slice(-shown).forEach(function (w, i) {
      var index = windows.length - Math.min(shown, windows.length) + i;
      ws.appendChild(bzWindow(ctx, w, index, index === windows.length - 1));
    });
    if (!windows.length) ws.appendChild(empty("no window resolved yet this round"));
    board.appendChild(ws);

    // seats
    var seats = section("Players", "bz-seats seat-panels");
    var scores = arr(v.scores);
    var colours = arr(v.colours);
    for (var seat = 0; seat < n; seat++) {
      var panel = ctx.seatPanel(seat);
      var colour = safeToken(colours[seat]);
      if (colour) panel.classList.add("colour-" + colour);
      var own = ctx.own(seat);
      panel.appendChild(ctx.seatHeader(seat, h("span", { class: "swatch" + (colour ? " colour-" + colour : ""), text: colours[seat] || "" }),
        kv("Score", isNum(scores[seat]) ? scores[seat] : 0, "score"),
        v.turn === seat ? h("span", { class: "badge", text: "turn" }) : null,
        v.dealer === seat ? h("span", { class: "badge", text: "dealer" }) : null));
      var hand;
      if (own && Array.isArray(own.hand)) {
        hand = own.hand.length ? own.hand.map(function (c) {
          return bzCard(c);
        }) : [empty("empty hand")];
      } else {
        var size = arr(v.hand_sizes)[seat];
        hand = backs(size, true);
        if (!hand.length) hand = [empty("empty hand")];
      }
      var sw = arr(v.swatters_in_hand)[seat];
      panel.appendChild(row("hand", h("span", { class: "row-label", text: "Hand" + (isNum(sw) ? " (" + sw + " swatters)" : "") }), hand));
      if (own && has(own, "submitted")) {
        var sub = own.submitted;
        panel.appendChild(h("p", { class: "note", text: "Sealed submission this window: " +
          (sub === null ? "none yet" : sub.type === "pass" ? "pass" : cardName(obj(sub).card)) }));
      }
      var taken = arr(arr(v.taken)[seat]);
      panel.appendChild(row("taken", h("span", { class: "row-label", text: "Taken (" + taken.length + ")" }),
        taken.length ? taken.map(function (c) {
          return bzCard(c, true);
        }) : empty()));
      var swatted = arr(arr(v.swatted)[seat]), spent = arr(arr(v.spent)[seat]);
      if (swatted.length || spent.length) {
        panel.appendChild(row("swatters", h("span", { class: "row-label", text: "Swatters used" }),
          swatted.map(function (c) {
            return bzCard(c, true, { classes: ["swatted"] });
          }), spent.map(function (c) {
            return bzCard(c, true, { classes: ["spent"] });
          })));
      }
      seats.appendChild(panel);
    }
    board.appendChild(seats);

    var discard = arr(v.discard);
    if (discard.length) {
      var d = section("Discard (" + discard.length + ")", "bz-discard");
      d.appendChild(row("", discard.slice(-12).map(function (c) {
        return bzCard(c, true);
      })));
      board.appendChild(d);
    }

    var rounds = arr(v.rounds);
    if (rounds.length) {
      var r = section("Rounds", "bz-rounds");
      var rows = rounds.map(function (rd) {
        rd = obj(rd);
        return { label: "Round " + rd.round + " (" + (rd.end === "no-play" ? "no play" : text(rd.end)) + ", " + text(rd.windows) + " windows)",
          values: arr(rd.points) };
      });
      rows.push({ label: "Total", values: scores });
      r.appendChild(scoreTable(ctx, "Points", rows, n));
      var last = obj(rounds[rounds.length - 1]);
      if (last.taken || last.hands) {
        var detail = h("div", { class: "bz-last-round" },
          h("h5", { text: "Round " + last.round + ": what each seat took and kept" }));
        for (var s = 0; s < n; s++) {
          detail.appendChild(h("div", { class: "seat-panel small", "data-seat": s },
            h("div", { class: "seat-header" }, h("span", { class: "seat-name", text: ctx.name(s) })),
            row("taken", h("span", { class: "row-label", text: "Took" }), arr(arr(last.taken)[s]).map(function (c) {
              return bzCard(c, true);
            })),
            row("kept", h("span", { class: "row-label", text: "Left in hand" }), arr(arr(last.hands)[s]).map(function (c) {
              return bzCard(c, true);
            }))));
        }
        if (last.final_window) detail.appendChild(bzWindow(ctx, last.final_window, (isNum(last.windows) ? last.windows : 1) - 1, false));
        r.appendChild(detail);
      }
      board.appendChild(r);
    }
  }

  /** Tricks ended so far this round (a web or a swatter on a pest ends one). */
  function bzTricksDone(v) {
    return arr(v.windows).filter(function (w) {
      var e = obj(w).effect;
      return e === "web" || e === "swat-trick";
    }).length;
  }

  // the card that landed on the trick
  function justMoved(before, now) {
    var top = topCardId(now.trick);
    return top && top !== topCardId(before.trick) ? [top] : [];
  }

  viewer.register("bszzzz", {
    render: renderBszzzz,
    scoreKey: "scores",
    marks: [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + v.round; } },
      { name: "trick", key: function (v) { return v.round + "|" + bzTricksDone(v); },
        label: function (v) { return "Trick " + (bzTricksDone(v) + 1); } },
      { name: "window", key: function (v) { return v.round + "|" + arr(v.windows).length; },
        label: function (v) { return "Window " + (arr(v.windows).length + 1); } },
    ],
    justMoved: justMoved,
  });
})();
