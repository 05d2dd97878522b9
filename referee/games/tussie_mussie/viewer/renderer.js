/* Tussie Mussie in the replay viewer: its board, score key, jumps and moved cards (docs/viewer.md).
 * A game package's renderer: it registers itself with the viewer's core (webui/static/webui/viewer.js),
 * which the match page loads first; the DOM is built with the core's kit only (no HTML parsed). */
(function () {
  "use strict";
  var viewer = window.ParlourViewer;
  var { arr, obj, isNum, text, h, section, kv, row, empty, card, cardBack, statusLine, seatList, idsIn } = viewer.kit;

  var TM_PHASES = { offer: "Offers", take: "Offers (taking)", distribute: "Turn card", pre: "Pre-Presentation", over: "Match over" };

  function tmTile(tile, extra) {
    tile = obj(tile);
    extra = extra || {};
    if (tile.hidden) return cardBack({ small: extra.small, title: extra.title || "face-down tile" });
    var hearts = isNum(tile.hearts) ? tile.hearts : 0;
    return card({
      id: tile.id, name: tile.name || tile.id, colour: tile.colour, kind: "tile",
      kindLabel: tile.timing === "pre-presentation" ? "pre-presentation" : tile.timing === "scoring" ? "scoring" : "",
      value: hearts ? new Array(hearts + 1).join("\u2665") : "0\u2661", symbol: "\u273f",
      classes: extra.classes, note: extra.note, small: extra.small,
    });
  }
  function tmArrangement(ctx, columns, label) {
    columns = arr(columns);
    var table = h("table", { class: "tm-arrangement" });
    var rows = [["bouquet", "Bouquet"], ["keepsakes", "Keepsakes"]];
    rows.forEach(function (r) {
      var tr = h("tr", { class: "tm-row tm-" + r[0] }, h("th", { text: r[1] }));
      columns.forEach(function (col, i) {
        col = obj(col);
        var td = h("td", { class: "tm-cell", "data-column": i });
        if (col.gap) {
          if (r[0] === "bouquet") td.appendChild(h("span", { class: "tm-gap", text: "gap" }));
        } else if (col.row === r[0]) {
          td.appendChild(tmTile(col.tile, { classes: r[0] === "keepsakes" && !obj(col.tile).hidden ? ["face-down-known"] : null,
            note: r[0] === "keepsakes" && !obj(col.tile).hidden ? "face down" : null }));
        }
        tr.appendChild(td);
      });
      if (!columns.length) tr.appendChild(h("td", null, empty("no tiles")));
      table.appendChild(tr);
    });
    if (label) table.appendChild(h("caption", { text: label }));
    return table;
  }
  function renderTussieMussie(ctx, board) {
    var v = ctx.view;
    var n = ctx.players();
    var solo = v.variant === "solo";
    board.appendChild(statusLine(
      kv("Round", isNum(v.round) ? v.round + 1 + " / 3" : "?"),
      kv("Phase", TM_PHASES[v.phase] || v.phase),
      kv("First player", isNum(v.first_player) ? ctx.name(v.first_player) : "—"),
      kv("Stack", (isNum(v.stack_size) ? v.stack_size : "?") + " tiles"),
      kv("To move", seatList(ctx, v.to_move))
    ));

    // the current offer
    if (v.offer) {
      var offer = obj(v.offer);
      var s = section("Offer", "tm-offer");
      var offererView = ctx.own(offer.offerer);
      var drawn = offererView && obj(offererView.offer).drawn ? arr(offererView.offer.drawn) : arr(offer.drawn);
      var up = offer.face_up ? obj(offer.face_up) : null;
      var tiles = [];
      if (up) {
        tiles.push(h("figure", { class: "played tm-offer-side" }, tmTile(up), h("figcaption", { text: "face up" })));
        var down = drawn.filter(function (t) {
          return obj(t).id !== up.id;
        })[0];
        tiles.push(h("figure", { class: "played tm-offer-side" }, down ? tmTile(down, { classes: ["face-down-known"] }) : cardBack(),
          h("figcaption", { text: "face down" })));
      } else if (drawn.length) {
        drawn.forEach(function (t) {
          tiles.push(h("figure", { class: "played tm-offer-side" }, tmTile(t), h("figcaption", { text: "drawn" })));
        });
      } else {
        tiles.push(h("figure", { class: "played tm-offer-side" }, cardBack(), h("figcaption", { text: "drawn" })));
        tiles.push(h("figure", { class: "played tm-offer-side" }, cardBack(), h("figcaption", { text: "drawn" })));
      }
      s.appendChild(h("p", null, ctx.seatTag(offer.offerer), " offers to ", ctx.seatTag(offer.receiver)));
      s.appendChild(row("tm-offer-tiles", tiles));
      board.appendChild(s);
    }

    // solo: the Turn card and its layout
    if (solo || arr(v.table).length || v.turn_card) {
      var t = section("Turn card", "tm-turn");
      t.appendChild(statusLine(kv("Turn card", v.turn_card || "—"), kv("Turn cards left", v.turn_cards_left)));
      t.appendChild(row("tm-table", arr(v.table).map(function (slot) {
        slot = obj(slot);
        return h("figure", { class: "played tm-offer-side" }, tmTile(slot.tile),
          h("figcaption", { text: slot.side === "U" ? "face up" : "face down" }));
      })));
      if (arr(v.apprentice_kept_from).length) {
        t.appendChild(h("p", { class: "note", text: "The apprentice kept its tiles from: " + arr(v.apprentice_kept_from).join(", ") }));
      }
      board.appendChild(t);
    }

    // Pre-Presentation
    if (v.pre_presentation) {
      var pre = obj(v.pre_presentation);
      var p = section("Pre-Presentation", "tm-pre");
      var actingView = ctx.own(pre.acting);
      var drawnL = actingView && obj(actingView.pre_presentation).larkspur_drawn
        ? arr(actingView.pre_presentation.larkspur_drawn) : arr(pre.larkspur_drawn);
      p.appendChild(h("p", null, "Acting: ", ctx.seatTag(pre.acting),
        isNum(pre.snapdragon_moved) ? " · Snapdragon moved column " + (pre.snapdragon_moved + 1) : ""));
      if (drawnL.length) p.appendChild(row("", h("span", { class: "row-label", text: "Larkspur drew" }), drawnL.map(function (x) {
        return tmTile(x, { small: true });
      })));
      board.appendChild(p);
    }

    // arrangements, seat by seat
    var seats = section("Arrangements", "tm-seats seat-panels");
    var scores = arr(v.scores);
    for (var seat = 0; seat < n; seat++) {
      var panel = ctx.seatPanel(seat);
      var ownView = ctx.own(seat);
      var columns = ownView ? arr(ownView.arrangements)[seat] : arr(v.arrangements)[seat];
      var orchid = arr(v.orchid)[seat];
      panel.appendChild(ctx.seatHeader(seat,
        kv(solo ? "Score (you − apprentice)" : "Score", isNum(scores[seat]) ? scores[seat] : 0, "score"),
        orchid && orchid !== "white" ? kv("Orchid counts as", orchid) : null,
        arr(arr(v.used)[seat]).length ? kv("Used", arr(arr(v.used)[seat]).map(cardName).join(", ")) : null));
      panel.appendChild(tmArrangement(ctx, columns));
      seats.appendChild(panel);
    }
    if (solo) {
      var app = h("div", { class: "seat-panel apprentice", "data-seat": "apprentice" },
        h("div", { class: "seat-header" }, h("span", { class: "seat-name", text: "Apprentice" })));
      var appCols = ctx.seatViews && ctx.seatViews[0] ? arr(obj(ctx.seatViews[0]).apprentice) : arr(v.apprentice);
      app.appendChild(tmArrangement(ctx, appCols));
      seats.appendChild(app);
    }
    board.appendChild(seats);

    // tiles out of the round
    var outTiles = arr(v.out_of_round);
    if (ctx.seatViews) {
      // every seat saw some of them: show a tile when any seat's view shows it
      outTiles = outTiles.map(function (t, i) {
        for (var k = 0; k < ctx.seatViews.length; k++) {
          var seen = arr(obj(ctx.seatViews[k]).out_of_round)[i];
          if (seen && !seen.hidden) return seen;
        }
        return t;
      });
    }
    if (outTiles.length) {
      var o = section("Out of the round", "tm-out");
      o.appendChild(row("", outTiles.map(function (x) {
        return tmTile(x, { small: true });
      })));
      board.appendChild(o);
    }

    // finished rounds
    var rounds = arr(v.rounds);
    if (rounds.length) {
      var r = section("Rounds", "tm-rounds");
      var cols = solo ? 2 : n;
      var table = h("table", { class: "score-table" });
      var head = h("tr", null, h("th", { text: "Round" }));
      for (var c = 0; c < cols; c++) head.appendChild(h("th", { text: solo && c === 1 ? "Apprentice" : ctx.name(c) }));
      table.appendChild(h("thead", null, head));
      var body = h("tbody");
      rounds.forEach(function (rd) {
        rd = obj(rd);
        var tr = h("tr", null, h("th", { text: isNum(rd.round) ? rd.round + 1 : "?" }));
        for (var c2 = 0; c2 < cols; c2++) tr.appendChild(h("td", { text: text(arr(rd.points)[c2]) }));
        body.appendChild(tr);
      });
      table.appendChild(body);
      r.appendChild(table);
      var last = obj(rounds[rounds.length - 1]);
      if (v.phase === "over" && arr(last.arrangements).length) {
        var finals = h("div", { class: "tm-final" });
        arr(last.arrangements).forEach(function (cols2, hand) {
          finals.appendChild(h("div", { class: "seat-panel", "data-seat": hand },
            h("div", { class: "seat-header" }, h("span", { class: "seat-name",
              text: (solo && hand === 1 ? "Apprentice" : ctx.name(hand)) + " — final arrangement" })),
            tmArrangement(ctx, cols2)));
        });
        r.appendChild(finals);
      }
      board.appendChild(r);
    }
  }


  // the tiles that came into an arrangement
  function justMoved(before, now) {
    var had = idsIn(before.arrangements);
    return idsIn(now.arrangements).filter(function (id) { return had.indexOf(id) < 0; });
  }

  viewer.register("tussie-mussie", {
    render: renderTussieMussie,
    scoreKey: "scores",
    marks: [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + (v.round + 1); } },
      { name: "offer", key: function (v) { return v.round + "|" + (v.offer ? obj(v.offer).offerer + ">" + obj(v.offer).receiver : v.phase); },
        label: function (v, viewer) {
          return v.offer ? "Offer: " + viewer.seatName(obj(v.offer).offerer) + " to " + viewer.seatName(obj(v.offer).receiver) :
            TM_PHASES[v.phase] || text(v.phase);
        } },
    ],
    justMoved: justMoved,
  });
})();
