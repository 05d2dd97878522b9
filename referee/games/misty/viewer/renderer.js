/* Misty in the replay viewer: its board, score key, jumps and moved cards (docs/viewer.md).
 * A game package's renderer: it registers itself with the viewer's core (webui/static/webui/viewer.js),
 * which the match page loads first; the DOM is built with the core's kit only (no HTML parsed). */
(function () {
  "use strict";
  var viewer = window.ParlourViewer;
  var { has, arr, obj, isNum, text, compact, cardName, h, section, kv, row, empty, card, cardBack, backs,
    scoreTable, statusLine, seatList } = viewer.kit;

  var MISTY_ARROW = { up: "\u2191", down: "\u2193", left: "\u2190", right: "\u2192" };
  var MISTY_SYMBOL = { flower: "\u273f", monster: "\u2689", smile: "\u263a", plain: "\u25c6" };

  function mistyCard(c, small, extra) {
    c = obj(c);
    if (c.hidden) return cardBack({ small: small });
    var arrow = MISTY_ARROW[c.moves] || MISTY_ARROW[c.kind];
    return card({
      id: c.id, name: c.name || c.motif || c.id, kind: c.kind, colour: c.kind,
      kindLabel: arrow ? "moves " + (c.moves || c.kind) : c.kind, value: arrow || "",
      symbol: arrow || MISTY_SYMBOL[c.kind] || "", small: small,
      classes: extra && extra.classes, note: extra && extra.note,
    });
  }
  function mistyWindow(ctx, win) {
    win = obj(win);
    var cells = arr(win.cells);
    var minR, maxR, minC, maxC;
    if (isNum(win.rows) && isNum(win.cols)) {
      minR = 0; maxR = win.rows - 1; minC = 0; maxC = win.cols - 1;
    } else {
      minR = minC = Infinity; maxR = maxC = -Infinity;
      cells.forEach(function (cell) {
        cell = obj(cell);
        if (!isNum(cell.row) || !isNum(cell.col)) return;
        minR = Math.min(minR, cell.row); maxR = Math.max(maxR, cell.row);
        minC = Math.min(minC, cell.col); maxC = Math.max(maxC, cell.col);
      });
      if (minR === Infinity) {
        minR = maxR = minC = maxC = 0;
      }
    }
    // keep the grid small even if the data is odd
    maxR = Math.min(maxR, minR + 11);
    maxC = Math.min(maxC, minC + 11);
    var byCell = {};
    cells.forEach(function (cell) {
      cell = obj(cell);
      byCell[cell.row + "," + cell.col] = arr(cell.cards);
    });
    var moved = arr(win.moved), fed = arr(win.fed);
    // labelled as the labels and events name a cell: "(1, 0)" is row 1, col 0
    var grid = h("div", { class: "misty-window" }, h("span", { class: "misty-axis", text: "(row, col)" }));
    grid.style.gridTemplateColumns = "auto repeat(" + (maxC - minC + 1) + ", auto)";
    for (var c0 = minC; c0 <= maxC; c0++) grid.appendChild(h("span", { class: "misty-col-label", "data-col": c0, text: "col " + c0 }));
    for (var r = minR; r <= maxR; r++) {
      grid.appendChild(h("span", { class: "misty-row-label", "data-row": r, text: "row " + r }));
      for (var c = minC; c <= maxC; c++) {
        var stack = byCell[r + "," + c] || [];
        var cellEl = h("div", { class: "misty-cell" + (stack.length ? "" : " empty") + (stack.length > 1 ? " stacked" : ""),
          "data-row": r, "data-col": c, title: "(" + r + ", " + c + ")" + (stack.length > 1 ? ": " + stack.length + " cards, the top one last" : "") });
        stack.forEach(function (x, i) {
          x = obj(x);
          var cls = [];
          var notes = [];
          if (moved.indexOf(x.id) >= 0) {
            cls.push("used");
            notes.push("moved");
          }
          if (fed.indexOf(x.id) >= 0) {
            cls.push("used");
            notes.push("has eaten");
          }
          // a stack is fanned: each covered card a strip with its name, the top card whole below them
          if (i === stack.length - 1) cls.push("top");
          else {
            cls.push("covered");
            notes.push("covered");
          }
          cellEl.appendChild(mistyCard(x, true, { classes: cls, note: notes.join(", ") || null }));
        });
        if (stack.length > 1) cellEl.appendChild(h("span", { class: "stack-count", text: "\u00d7" + stack.length }));
        grid.appendChild(cellEl);
      }
    }
    return grid;
  }
  /** Every card object the view shows, by id (the round's events name cards by id only). */
  function mistyKnownCards(v) {
    var known = {};
    var note = function (c) {
      c = obj(c);
      if (typeof c.id === "string") known[c.id] = c;
    };
    arr(v.windows).forEach(function (w) {
      arr(obj(w).cells).forEach(function (cell) {
        arr(obj(cell).cards).forEach(note);
      });
    });
    arr(v.hand).forEach(note);
    arr(v.hands).forEach(function (x) {
      arr(obj(x).cards).forEach(note);
    });
    arr(v.rounds).forEach(function (rd) {
      arr(obj(rd).windows).forEach(function (w) {
        arr(w).forEach(function (cell) {
          arr(obj(cell).cards).forEach(note);
        });
      });
    });
    return known;
  }
  function renderMisty(ctx, board) {
    var v = ctx.view;
    var n = ctx.players();
    var draft = v.draft ? obj(v.draft) : null;
    board.appendChild(statusLine(
      kv("Round", v.round),
      kv("Phase", v.phase),
      draft ? kv("Draft", "phase " + draft.phase + "/" + draft.phases + " · pick " + draft.pick + "/" + draft.picks +
        " · passing " + draft.direction) : null,
      isNum(v.active) ? kv("Activating", ctx.name(v.active)) : null,
      kv("First player", isNum(v.first_player) ? ctx.name(v.first_player) : "—"),
      kv("To move", seatList(ctx, v.to_move))
    ));
    var seats = section("Windows", "misty-seats seat-panels");
    var windows = arr(v.windows);
    var hands = arr(v.hands);
    var wins = arr(v.round_wins), points = arr(v.points);
    for (var seat = 0; seat < n; seat++) {
      var panel = ctx.seatPanel(seat);
      panel.appendChild(ctx.seatHeader(seat, kv("Round wins", isNum(wins[seat]) ? wins[seat] : 0, "score"),
        kv("Points", isNum(points[seat]) ? points[seat] : 0),
        v.active === seat ? h("span", { class: "badge", text: "activating" }) : null));
      var win = windows.filter(function (w) {
        return obj(w).seat === seat;
      })[0] || windows[seat];
      panel.appendChild(mistyWindow(ctx, win));
      // the hand, when known
      var own = ctx.own(seat);
      var info = obj(hands.filter(function (x) {
        return obj(x).seat === seat;
      })[0] || hands[seat]);
      var handCards = own && Array.isArray(own.hand) ? own.hand : Array.isArray(info.cards) ? info.cards : null;
      var handEls;
      if (handCards) {
        handEls = handCards.length ? handCards.map(function (c) {
          return mistyCard(c, true);
        }) : [empty("empty hand")];
      } else {
        handEls = isNum(info.count) && info.count ? backs(info.count, true) : [empty("empty hand")];
      }
      panel.appendChild(row("hand", h("span", { class: "row-label", text: "Hand" }), handEls));
      if (own && own.pending) {
        var pend = obj(own.pending);
        panel.appendChild(h("p", { class: "note", text: "Sealed choice: " + text(pend.motif || pend.kind) +
          (isNum(pend.row) ? " → cell (" + pend.row + ", " + pend.col + ")" : "") }));
      }
      seats.appendChild(panel);
    }
    board.appendChild(seats);

    var log = arr(v.log);
    if (log.length) {
      var l = section("This round's events (latest last)", "misty-log");
      var list = h("ul", { class: "event-log" });
      var known = mistyKnownCards(v);
      var nameOf = function (id) {
        return known[id] ? text(known[id].name) : cardName(id);
      };
      log.slice(-6).forEach(function (e) {
        e = obj(e);
        var item = h("li");
        if (e.event === "reveal") {
          item.appendChild(h("span", { text: "Revealed (phase " + text(e.phase) + ", pick " + text(e.pick) + "): " }));
          arr(e.placements).forEach(function (p) {
            p = obj(p);
            var cardObj = typeof p.card === "string" ? known[p.card] || { id: p.card, name: cardName(p.card) } : p.card;
            item.appendChild(h("span", { class: "placement" }, ctx.seatTag(p.seat), " ", mistyCard(cardObj, true),
              " (" + p.row + ", " + p.col + ")"));
          });
        } else if (e.event === "move") {
          item.textContent = ctx.name(e.seat) + ": " + nameOf(e.card) + " moves from (" + e.row + ", " + e.col + ")" +
            (has(e, "to_row") ? " to (" + e.to_row + ", " + e.to_col + ")" : " out of the window");
        } else if (e.event === "eat") {
          item.textContent = ctx.name(e.seat) + ": " + nameOf(e.monster) + " eats " + nameOf(e.flower) +
            " at (" + (has(e, "to_row") ? e.to_row + ", " + e.to_col : e.row + ", " + e.col) + ")";
        } else {
          item.textContent = compact(e);
        }
        list.appendChild(item);
      });
      l.appendChild(list);
      board.appendChild(l);
    }

    var rounds = arr(v.rounds);
    if (rounds.length) {
      var r = section("Rounds", "misty-rounds");
      r.appendChild(scoreTable(ctx, "Points", rounds.map(function (rd) {
        rd = obj(rd);
        return { label: "Round " + rd.round + " (won by " + seatList(ctx, rd.winners) + ")", values: arr(rd.points) };
      }), n));
      board.appendChild(r);
    }
  }


  // the cards placed, moved or eating in this step's events
  function justMoved(before, now) {
    if (before.round !== now.round) return [];
    var ids = [];
    arr(now.log).slice(arr(before.log).length).forEach(function (e) {
      e = obj(e);
      if (e.event === "move") ids.push(e.card);
      else if (e.event === "eat") ids.push(e.monster);
      else if (e.event === "reveal") arr(e.placements).forEach(function (p) { ids.push(obj(p).card); });
    });
    return ids;
  }

  viewer.register("misty", {
    render: renderMisty,
    scoreKey: "points",
    marks: [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + v.round; } },
      { name: "pick", key: function (v) { return v.round + "|" + (v.draft ? obj(v.draft).phase + "/" + obj(v.draft).pick : v.phase); },
        label: function (v) { return v.draft ? "Draft phase " + obj(v.draft).phase + ", pick " + obj(v.draft).pick : "Phase: " + text(v.phase); } },
    ],
    justMoved: justMoved,
  });
})();
