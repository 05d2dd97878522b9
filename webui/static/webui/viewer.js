/* Parlour replay viewer: plain JavaScript, no framework, no build step.
 *
 * Reads a replay (the JSON documented at the top of referee/replay.py) from the container's
 * data-replay-url and draws one step at a time, for the spectator, one seat, or every seat's own
 * view side by side ("everything revealed"). docs/viewer.md lists the element ids and classes.
 *
 * Security: bot names, log lines and every value of a replay are user-supplied, so the DOM is built
 * with createElement / textContent only (no HTML is ever parsed), and values become class names only after
 * a strict check (safeToken).
 */
(function () {
  "use strict";

  // ------------------------------------------------------------------ replay frames
  function has(obj, key) {
    return obj !== null && typeof obj === "object" && Object.prototype.hasOwnProperty.call(obj, key);
  }

  /** Apply a delta made by referee/replay.py's diff (``old`` is not modified). */
  function patch(old, delta) {
    if (has(delta, "v")) return delta.v;
    if (has(delta, "o")) {
      var removed = Array.isArray(delta.x) ? delta.x.map(String) : [];
      var out = {};
      var base = old !== null && typeof old === "object" ? old : {};
      Object.keys(base).forEach(function (key) {
        if (removed.indexOf(key) < 0) out[key] = base[key];
      });
      Object.keys(delta.o).forEach(function (key) {
        out[key] = patch(has(base, key) ? base[key] : null, delta.o[key]);
      });
      return out;
    }
    if (has(delta, "a")) return (Array.isArray(old) ? old : []).concat(delta.a);
    if (has(delta, "l")) {
      var list = Array.isArray(old) ? old.slice() : [];
      Object.keys(delta.l).forEach(function (index) {
        var i = parseInt(index, 10);
        list[i] = patch(list[i], delta.l[index]);
      });
      return list;
    }
    throw new Error("not a replay delta: " + JSON.stringify(delta));
  }

  /** A list of frames decoded lazily; decoded views share unchanged parts (treat them as read-only). */
  function FrameList(frames) {
    this.frames = Array.isArray(frames) ? frames : [];
    this.cache = [];
  }
  FrameList.prototype.length = function () {
    return this.frames.length;
  };
  /** More frames of a live match, in order (frame i is step i). */
  FrameList.prototype.append = function (frames) {
    for (var i = 0; i < frames.length; i++) this.frames.push(frames[i]);
  };
  FrameList.prototype.get = function (index) {
    var frames = this.frames;
    if (index < 0 || index >= frames.length) return null;
    if (this.cache[index] !== undefined) return this.cache[index];
    var start = index;
    while (start > 0 && this.cache[start] === undefined && !has(frames[start], "k")) start--;
    var view = this.cache[start];
    if (view === undefined) {
      view = has(frames[start], "k") ? frames[start].k : patch(null, frames[start].d);
      this.cache[start] = view;
    }
    for (var i = start + 1; i <= index; i++) {
      view = has(frames[i], "k") ? frames[i].k : patch(view, frames[i].d);
      this.cache[i] = view;
    }
    return view;
  };

  // ------------------------------------------------------------------ small helpers
  function arr(x) {
    return Array.isArray(x) ? x : [];
  }
  function obj(x) {
    return x !== null && typeof x === "object" && !Array.isArray(x) ? x : {};
  }
  function isNum(x) {
    return typeof x === "number" && isFinite(x);
  }
  function safeToken(x) {
    return typeof x === "string" && /^[a-z][a-z0-9_-]{0,30}$/i.test(x) ? x.toLowerCase() : null;
  }
  function text(x) {
    if (x === null || x === undefined) return "";
    if (typeof x === "object") return compact(x);
    return String(x);
  }
  /** A short readable form of a small JSON value (actions, choices): "play · card: red bee" (a card id
   * becomes the card's name). */
  function compact(value) {
    if (value === null || value === undefined) return "—";
    if (Array.isArray(value)) return value.map(compact).join(", ");
    if (typeof value !== "object") return cardName(value);
    var parts = [];
    if (has(value, "type")) parts.push(String(value.type));
    Object.keys(value).forEach(function (key) {
      if (key === "type") return;
      var v = value[key];
      parts.push(key.replace(/_/g, " ") + ": " + (v !== null && typeof v === "object" ? compact(v) : cardName(v)));
    });
    return parts.join(" · ");
  }

  // ------------------------------------------------------------------ the game's card texts
  /** The page's table of the game's cards (the engine's GameDescription.card_texts, rendered by the
   * site as <script id="viewer-card-texts">): {id: {name, text}}. Read once; {} when absent. */
  var cardTable = null;
  function cardInfo(id) {
    if (cardTable === null) {
      cardTable = {};
      var node = document.getElementById("viewer-card-texts");
      try {
        cardTable = obj(node ? JSON.parse(node.textContent || "{}") : {});
      } catch (e) {
        cardTable = {};
      }
    }
    return typeof id === "string" && has(cardTable, id) ? obj(cardTable[id]) : null;
  }
  /** A card's name for its id (the value itself when it is not a card id). */
  function cardName(value) {
    var info = cardInfo(value);
    return info && info.name ? String(info.name) : String(value);
  }

  /** h("div", {class: "x", text: "y", "data-seat": 1}, children...) — never parses HTML. */
  function h(tag, attrs) {
    var element = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (key === "class") element.className = value;
        else if (key === "text") element.textContent = String(value);
        else if (key === "onclick") element.addEventListener("click", value);
        else element.setAttribute(key, String(value));
      });
    }
    for (var i = 2; i < arguments.length; i++) add(element, arguments[i]);
    return element;
  }
  function add(parent, child) {
    if (child === null || child === undefined || child === false) return parent;
    if (Array.isArray(child)) {
      child.forEach(function (c) {
        add(parent, c);
      });
    } else if (typeof child === "object" && child.nodeType) {
      parent.appendChild(child);
    } else {
      parent.appendChild(document.createTextNode(String(child)));
    }
    return parent;
  }
  function clear(element) {
    while (element.firstChild) element.removeChild(element.firstChild);
  }
  function section(title, cls) {
    var s = h("section", { class: "viewer-section" + (cls ? " " + cls : "") });
    if (title) s.appendChild(h("h4", { class: "viewer-section-title", text: title }));
    return s;
  }
  function kv(label, value, cls) {
    return h("span", { class: "kv" + (cls ? " " + cls : "") }, h("span", { class: "kv-label", text: label }), " ",
      h("span", { class: "kv-value", text: text(value) }));
  }
  function row(cls) {
    var r = h("div", { class: "card-row" + (cls ? " " + cls : "") });
    for (var i = 1; i < arguments.length; i++) add(r, arguments[i]);
    return r;
  }
  function empty(label) {
    return h("span", { class: "viewer-empty", text: label || "none" });
  }

  // ------------------------------------------------------------------ cards
  /**
   * A card tile. spec: {id, name, value, kind, colour, note, symbol, classes, title, text, small}; the
   * tooltip (title) gives the name, kind, colour and note, then what the card does: spec.text, else the
   * page's card texts for its id.
   * A spec with hidden: true draws a card back (no data-card-id).
   */
  function card(spec) {
    spec = spec || {};
    if (spec.hidden) return cardBack(spec);
    var classes = ["card"];
    var colour = safeToken(spec.colour);
    if (colour) classes.push("colour-" + colour);
    var kind = safeToken(spec.kind);
    if (kind) classes.push("kind-" + kind);
    if (spec.small) classes.push("small");
    arr(spec.classes).forEach(function (c) {
      if (safeToken(c)) classes.push(c);
    });
    var info = cardInfo(spec.id);
    var effect = spec.text || (info && info.text) || "";
    var tile = h("div", {
      class: classes.join(" "),
      "data-card-id": spec.id !== undefined && spec.id !== null ? String(spec.id) : null,
      "data-colour": spec.colour ? String(spec.colour) : null,
      // the tooltip: the name, what kind of card, and what it does (the rules' words)
      title: spec.title || [spec.name, spec.kindLabel || spec.kind, spec.colour !== spec.kind ? spec.colour : null, spec.note]
        .filter(Boolean).join(" · ") + (effect ? " — " + effect : ""),
    });
    tile.appendChild(h("span", { class: "card-band" }));
    tile.appendChild(h("span", { class: "card-value", text: spec.value === undefined || spec.value === null ? "" : spec.value }));
    if (spec.symbol) tile.appendChild(h("span", { class: "card-symbol", "aria-hidden": "true", text: spec.symbol }));
    tile.appendChild(h("span", { class: "card-name", text: spec.name || spec.id || "?" }));
    tile.appendChild(h("span", { class: "card-kind", text: spec.kindLabel !== undefined ? spec.kindLabel : spec.kind || "" }));
    if (spec.note) tile.appendChild(h("span", { class: "card-note", text: spec.note }));
    return tile;
  }
  function cardBack(spec) {
    spec = spec || {};
    return h("div", {
      class: "card card-back" + (spec.small ? " small" : ""),
      "data-hidden": "true",
      title: spec.title || "hidden card",
    }, h("span", { class: "card-back-pattern", "aria-hidden": "true" }));
  }
  /** n card backs (a hand of known size), at most `cap` drawn, the rest counted. */
  function backs(n, small, cap) {
    n = isNum(n) ? Math.max(0, Math.floor(n)) : 0;
    cap = cap || 24;
    var out = [];
    for (var i = 0; i < Math.min(n, cap); i++) out.push(cardBack({ small: small }));
    if (n > cap) out.push(h("span", { class: "more", text: "+" + (n - cap) }));
    return out;
  }
  /** Any card-like object of an unknown shape (the generic renderer, unknown games). */
  function genericCard(c, small) {
    c = obj(c);
    if (c.hidden) return cardBack({ small: small });
    return card({
      id: c.id, name: c.name || c.id, colour: c.colour || c.family, kind: c.kind,
      value: has(c, "value") ? c.value : has(c, "capture") ? c.capture : has(c, "hearts") ? c.hearts : null,
      small: small,
    });
  }
  function looksLikeCard(x) {
    return x !== null && typeof x === "object" && !Array.isArray(x) && (x.hidden === true || typeof x.id === "string");
  }

  // ------------------------------------------------------------------ the renderers' context
  function Context(viewer, view, step, seatViews) {
    this.viewer = viewer;
    this.view = obj(view);
    this.step = step;
    this.seatViews = seatViews || null; // "everything revealed": every seat's own view
    var me = this.view.seat;
    this.me = seatViews ? null : isNum(me) ? me : null;
    this.header = viewer.header;
  }
  Context.prototype.players = function () {
    var v = this.view;
    var n = this.header.players;
    if (isNum(n)) return n;
    if (isNum(v.players)) return v.players;
    var guesses = [arr(v.scores).length, arr(v.arrangements).length, arr(v.windows).length, arr(v.hand_sizes).length];
    return Math.max.apply(null, guesses.concat([0]));
  };
  Context.prototype.name = function (seat) {
    return this.viewer.seatName(seat);
  };
  /** The view that knows seat's own cards: its own view, or null. */
  Context.prototype.own = function (seat) {
    if (this.seatViews) return this.seatViews[seat] ? obj(this.seatViews[seat]) : null;
    return this.me === seat ? this.view : null;
  };
  Context.prototype.seatTag = function (seat) {
    return h("span", { class: "seat-tag seat-" + (isNum(seat) ? seat : "x"), "data-seat": isNum(seat) ? seat : null,
      text: isNum(seat) ? this.name(seat) : "—" });
  };
  Context.prototype.seatPanel = function (seat, extraClass) {
    var classes = "seat-panel" + (extraClass ? " " + extraClass : "");
    if (this.me === seat) classes += " is-me";
    if (arr(this.view.to_move).indexOf(seat) >= 0) classes += " to-move";
    var panel = h("div", { class: classes, "data-seat": seat });
    var colour = safeToken(this.viewer.seatColour(seat));
    if (colour) panel.classList.add("colour-" + colour);
    return panel;
  };
  Context.prototype.seatHeader = function (seat) {
    var parts = [h("span", { class: "seat-name", text: this.name(seat) })];
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parts.push(arguments[i]);
    if (arr(this.view.to_move).indexOf(seat) >= 0) parts.push(h("span", { class: "badge badge-move", text: "to move" }));
    return h("div", { class: "seat-header" }, parts);
  };
  function scoreTable(ctx, title, rows, columns) {
    // rows: [{label, values: [per seat]}]
    var n = columns || ctx.players();
    var table = h("table", { class: "score-table" });
    var head = h("tr", null, h("th", { text: title || "" }));
    for (var s = 0; s < n; s++) head.appendChild(h("th", { text: ctx.name(s) }));
    table.appendChild(h("thead", null, head));
    var body = h("tbody");
    rows.forEach(function (r) {
      var tr = h("tr", null, h("th", { text: r.label }));
      for (var s = 0; s < n; s++) tr.appendChild(h("td", { text: text(arr(r.values)[s]) }));
      body.appendChild(tr);
    });
    table.appendChild(body);
    return table;
  }
  function statusLine() {
    var line = h("div", { class: "status-line" });
    for (var i = 0; i < arguments.length; i++) if (arguments[i]) add(line, arguments[i]);
    return line;
  }
  function seatList(ctx, seats) {
    seats = arr(seats);
    if (!seats.length) return "—";
    return seats.map(function (s) {
      return ctx.name(s);
    }).join(", ");
  }

  // ================================================================== Tussie Mussie
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
        tiles.push(h("figure", { class: "tm-offer-side" }, tmTile(up), h("figcaption", { text: "face up" })));
        var down = drawn.filter(function (t) {
          return obj(t).id !== up.id;
        })[0];
        tiles.push(h("figure", { class: "tm-offer-side" }, down ? tmTile(down, { classes: ["face-down-known"] }) : cardBack(),
          h("figcaption", { text: "face down" })));
      } else if (drawn.length) {
        drawn.forEach(function (t) {
          tiles.push(h("figure", { class: "tm-offer-side" }, tmTile(t), h("figcaption", { text: "drawn" })));
        });
      } else {
        tiles.push(h("figure", { class: "tm-offer-side" }, cardBack(), h("figcaption", { text: "drawn" })));
        tiles.push(h("figure", { class: "tm-offer-side" }, cardBack(), h("figcaption", { text: "drawn" })));
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
        return h("figure", { class: "tm-offer-side" }, tmTile(slot.tile),
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
    var seats = section("Arrangements", "tm-seats");
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

  // ================================================================== Tricky Twist
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
    var seats = section("Players", "tt-seats");
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

  // ================================================================== Misty
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
    var seats = section("Windows", "misty-seats");
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

  // ================================================================== Bszzzz!
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
    var seats = section("Players", "bz-seats");
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

  // ================================================================== generic (an unknown game)
  function renderGeneric(ctx, board) {
    board.appendChild(genericValue(ctx.view, 0));
  }
  function genericValue(value, depth) {
    if (value === null || value === undefined) return h("span", { class: "viewer-empty", text: "—" });
    if (Array.isArray(value)) {
      if (value.length && value.every(looksLikeCard)) {
        return row("", value.map(function (c) {
          return genericCard(c, true);
        }));
      }
      if (!value.length) return h("span", { class: "viewer-empty", text: "none" });
      if (depth > 4) return h("span", { text: value.length + " items" });
      var list = h("ol", { class: "generic-list", start: 0 });
      value.slice(0, 60).forEach(function (item) {
        list.appendChild(h("li", null, genericValue(item, depth + 1)));
      });
      if (value.length > 60) list.appendChild(h("li", { text: "… " + (value.length - 60) + " more" }));
      return list;
    }
    if (typeof value === "object") {
      if (looksLikeCard(value)) return genericCard(value, true);
      if (depth > 4) return h("span", { text: "…" });
      var dl = h("dl", { class: "generic-object" });
      Object.keys(value).forEach(function (key) {
        dl.appendChild(h("dt", { text: key.replace(/_/g, " ") }));
        dl.appendChild(h("dd", null, genericValue(value[key], depth + 1)));
      });
      return dl;
    }
    return h("span", { text: String(value) });
  }

  /** Where each game's public view keeps the seats' running scores. */
  var SCORE_KEYS = { "tussie-mussie": "scores", "tricky-twist": "totals", "misty": "points", "bszzzz": "scores" };

  /** The units a viewer can jump by, per game: a unit starts where its key changes from the step
   * before; label(view, viewer) names the unit a step belongs to (for the list of events). From public
   * frames only. */
  function bzTricksDone(v) {
    return arr(v.windows).filter(function (w) {
      var e = obj(w).effect;
      return e === "web" || e === "swat-trick";
    }).length;
  }
  var MARKS = {
    "tussie-mussie": [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + (v.round + 1); } },
      { name: "offer", key: function (v) { return v.round + "|" + (v.offer ? obj(v.offer).offerer + ">" + obj(v.offer).receiver : v.phase); },
        label: function (v, viewer) {
          return v.offer ? "Offer: " + viewer.seatName(obj(v.offer).offerer) + " to " + viewer.seatName(obj(v.offer).receiver) :
            TM_PHASES[v.phase] || text(v.phase);
        } },
    ],
    "tricky-twist": [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + (v.round + 1); } },
      { name: "trick", key: function (v) { return v.round + "|" + (v.phase === "reserve" ? "reserve" : arr(v.log).length); },
        label: function (v) { return v.phase === "reserve" ? "Reserve picks" : "Trick " + (arr(v.log).length + 1); } },
    ],
    "misty": [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + v.round; } },
      { name: "pick", key: function (v) { return v.round + "|" + (v.draft ? obj(v.draft).phase + "/" + obj(v.draft).pick : v.phase); },
        label: function (v) { return v.draft ? "Draft phase " + obj(v.draft).phase + ", pick " + obj(v.draft).pick : "Phase: " + text(v.phase); } },
    ],
    "bszzzz": [
      { name: "round", key: function (v) { return v.round; }, label: function (v) { return "Round " + v.round; } },
      { name: "trick", key: function (v) { return v.round + "|" + bzTricksDone(v); },
        label: function (v) { return "Trick " + (bzTricksDone(v) + 1); } },
      { name: "window", key: function (v) { return v.round + "|" + arr(v.windows).length; },
        label: function (v) { return "Window " + (arr(v.windows).length + 1); } },
    ],
  };

  /** The cards that moved at this step, per game, from the view before it and this one (ids): drawn
   * highlighted (class just-moved). */
  function idsIn(value, out) {
    out = out || [];
    if (Array.isArray(value)) value.forEach(function (x) { idsIn(x, out); });
    else if (value !== null && typeof value === "object") {
      if (typeof value.id === "string") out.push(value.id);
      Object.keys(value).forEach(function (k) { if (k !== "id") idsIn(value[k], out); });
    }
    return out;
  }
  function topCardId(trick) {
    var last = obj(arr(trick)[arr(trick).length - 1]);
    return obj(last.card).id || null;
  }
  var JUST_MOVED = {
    // the tiles that came into an arrangement
    "tussie-mussie": function (before, now) {
      var had = idsIn(before.arrangements);
      return idsIn(now.arrangements).filter(function (id) { return had.indexOf(id) < 0; });
    },
    // the card just played on the trick
    "tricky-twist": function (before, now) {
      return arr(now.trick).length > arr(before.trick).length ? [topCardId(now.trick)] : [];
    },
    // the cards placed, moved or eating in this step's events
    "misty": function (before, now) {
      if (before.round !== now.round) return [];
      var ids = [];
      arr(now.log).slice(arr(before.log).length).forEach(function (e) {
        e = obj(e);
        if (e.event === "move") ids.push(e.card);
        else if (e.event === "eat") ids.push(e.monster);
        else if (e.event === "reveal") arr(e.placements).forEach(function (p) { ids.push(obj(p).card); });
      });
      return ids;
    },
    // the card that landed on the trick
    "bszzzz": function (before, now) {
      var top = topCardId(now.trick);
      return top && top !== topCardId(before.trick) ? [top] : [];
    },
  };

  var RENDERERS = {
    "tussie-mussie": renderTussieMussie,
    "tricky-twist": renderTrickyTwist,
    "misty": renderMisty,
    "bszzzz": renderBszzzz,
  };

  // ================================================================== the viewer
  var SPEEDS = [0.5, 1, 2, 4, 8, 16];
  var BASE_DELAY_MS = 1000;
  var MIN_DELAY_MS = 15;
  var CATCH_UP_MS = 1500;

  function Viewer(root) {
    this.root = root;
    this.el = {};
    var ids = ["board", "step", "step-count", "slider", "play", "back", "forward", "first", "last", "speed",
      "perspective", "action", "logs", "status", "header", "result", "download", "all-logs", "scores"];
    for (var i = 0; i < ids.length; i++) this.el[ids[i]] = document.getElementById("viewer-" + ids[i]);
    this.replay = null;
    this.header = {};
    this.stepIndex = 0;
    this.perspective = "spectator";
    this.timer = null;
    this.pollTimer = null;
    this.following = false; // playing a live match at its pace: every step shown, catching up with the play
    this.liveRequest = null;
    this.speed = 1;
    this.frameLists = { public: new FrameList([]), seats: [] };
    this.seatViewCount = 0; // seats with views of their own, held or still to fetch (data-seats-url)
    this.seatsRequest = null;
    this.wantedPerspective = null;
    this.logsByStep = {};
    this.ui = {}; // what the user opened in the board, kept from step to step
  }

  Viewer.prototype.seatName = function (seat) {
    if (!isNum(seat)) return "—";
    var seats = arr(this.header.seats);
    var entry = obj(seats[seat]);
    var name = entry.bot ? String(entry.bot) + (entry.version ? " " + String(entry.version) : "") : "";
    return "Seat " + seat + (name ? " · " + name : "");
  };
  Viewer.prototype.seatColour = function (seat) {
    var entry = obj(arr(this.header.seats)[seat]);
    return obj(entry.attributes).colour || null;
  };
  Viewer.prototype.stepCount = function () {
    return this.frameLists.public.length();
  };

  Viewer.prototype.setStatus = function (message, isError) {
    var s = this.el.status;
    if (!s) return;
    s.textContent = message || "";
    s.classList.toggle("error", !!isError);
    s.hidden = !message;
  };

  Viewer.prototype.load = function () {
    var self = this;
    var url = this.root.getAttribute("data-replay-url");
    if (!url) {
      this.setStatus("No replay to show.", true);
      return Promise.resolve();
    }
    this.setStatus("Loading the replay…");
    return fetchReplay(url).then(function (replay) {
      self.setReplay(replay, true);
    }).catch(function (error) {
      self.setStatus("Could not load the replay: " + (error && error.message ? error.message : error), true);
    });
  };

  Viewer.prototype.setReplay = function (replay, first) {
    replay = obj(replay);
    this.replay = replay;
    this.header = obj(replay.header);
    this.frameLists = {
      public: new FrameList(replay.public),
      seats: arr(replay.views).map(function (frames) {
        return new FrameList(frames);
      }),
    };
    // a replay served in parts (webui/replays.py) says how many seats have views, fetched when a
    // seat's perspective is first picked; a whole replay holds them
    this.seatViewCount = this.frameLists.seats.length ||
      (isNum(replay.seat_views) && this.root.getAttribute("data-seats-url") ? replay.seat_views : 0);
    this.seatsRequest = null;
    this.root.setAttribute("data-game", String(this.header.game || ""));
    this.logsByStep = {};
    var self = this;
    arr(replay.bot_logs).forEach(function (line) {
      line = obj(line);
      var step = isNum(line.step) ? line.step : 0;
      (self.logsByStep[step] = self.logsByStep[step] || []).push(line);
    });
    this.buildPerspectives();
    this.buildHeader();
    this.buildAllLogs();
    this.buildMarks();
    this.buildEvents();
    var count = this.stepCount();
    if (this.el.slider) {
      this.el.slider.min = "0";
      this.el.slider.max = String(Math.max(0, count - 1));
    }
    this.showCount();
    var wanted = null; // a seat's perspective asked for whose views are still to fetch
    if (first) {
      var fragment = readFragment();
      if (fragment.view && this.perspectiveAllowed(fragment.view)) {
        if (this.seatViewsHeld() || fragment.view === "spectator") this.perspective = fragment.view;
        else wanted = fragment.view;
      }
      var step = fragment.step !== null ? fragment.step : this.header.live ? count - 1 : 0;
      this.setStatus(count ? "" : this.header.live ? "Waiting for the match's first frames…" : "This replay has no steps yet.");
      this.go(step, true);
      if (this.header.live && fragment.step === null) this.follow();
      this.root.setAttribute("data-ready", "true"); // the first step is drawn (bench/web.py times this)
      if (window.performance && performance.mark) performance.mark("viewer-ready");
    } else {
      if (this.perspective !== "spectator" && !this.seatViewsHeld()) {
        wanted = this.perspective; // the new replay's seats' views are still to fetch
        this.perspective = "spectator";
      }
      this.go(this.stepIndex, true); // the whole replay after the live frames: same step, no jump
    }
    if (wanted) this.setPerspective(wanted); // drawn once the seats' views are here
    this.root.classList.toggle("is-live", !!this.header.live);
    if (this.header.live && this.root.getAttribute("data-live-url")) this.pollLive();
    else this.schedulePoll();
  };

  Viewer.prototype.showCount = function () {
    var count = this.stepCount();
    if (this.el.slider) {
      this.el.slider.min = "0";
      this.el.slider.max = String(Math.max(0, count - 1));
    }
    if (this.el["step-count"]) this.el["step-count"].textContent = String(Math.max(0, count - 1));
  };

  /** Long polling (webui/replays.py): ask for the frames after the last one held; the server answers
   * as soon as there are some, or after a short wait. Once the match is over, the whole replay. */
  Viewer.prototype.pollLive = function () {
    var self = this;
    if (this.liveRequest) return;
    var url = this.root.getAttribute("data-live-url");
    var asked = this.stepCount();
    var started = Date.now();
    this.liveRequest = fetch(url + (url.indexOf("?") < 0 ? "?" : "&") + "from=" + asked, {
      credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store",
    }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (news) {
      self.liveRequest = null;
      news = obj(news);
      var frames = arr(news.frames);
      var fits = frames.length > 0 && news.first === self.stepCount(); // else the oldest frames were trimmed
      if (fits) self.addLiveFrames(frames);
      if (news.status !== "running" && news.status !== "scheduled") return self.liveEnded(news.status);
      // an answer at once with nothing to add (the server could not wait): ask again a little later
      var again = fits || Date.now() - started > 500 ? 0 : 1000;
      self.pollTimer = setTimeout(function () { self.pollLive(); }, again);
    }).catch(function () {
      self.liveRequest = null;
      self.pollTimer = setTimeout(function () { self.pollLive(); }, 2000);
    });
  };
  Viewer.prototype.addLiveFrames = function (frames) {
    var before = this.stepCount();
    this.frameLists.public.append(frames);
    this.showCount();
    if (!before) {
      this.setStatus("");
      this.go(0, true);
    }
    this.root.setAttribute("data-frames", String(this.stepCount()));
  };
  Viewer.prototype.liveEnded = function (status) {
    var self = this;
    if (status !== "finished") {
      this.header.live = false;
      this.root.classList.remove("is-live");
      this.buildHeader();
      this.setStatus("The match was " + text(status) + ".", status === "aborted");
      return;
    }
    fetchReplay(this.root.getAttribute("data-replay-url")).then(function (replay) {
      self.setReplay(replay, false);
    }).catch(function () {
      self.pollTimer = setTimeout(function () { self.liveEnded(status); }, 2000);
    });
  };

  /** A live match (its header says live): fetch again every few seconds until it is over. */
  Viewer.prototype.schedulePoll = function () {
    var self = this;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    var seconds = parseFloat(this.root.getAttribute("data-poll-seconds") || "5");
    if (!this.header.live || !(seconds > 0)) return;
    this.pollTimer = setTimeout(function () {
      fetchReplay(self.root.getAttribute("data-replay-url")).then(function (replay) {
        self.setReplay(replay, false);
      }).catch(function () {
        self.schedulePoll();
      });
    }, seconds * 1000);
  };

  Viewer.prototype.allowedList = function () {
    var node = document.getElementById("viewer-perspectives");
    if (!node) return null;
    var data;
    try {
      data = JSON.parse(node.textContent || "null");
    } catch (e) {
      return null;
    }
    if (data === false) return ["spectator"];
    if (!Array.isArray(data)) return null;
    return data.map(function (p) {
      if (isNum(p)) return "seat-" + p;
      p = String(p);
      return p === "everything" || p === "revealed" ? "all" : p;
    });
  };
  Viewer.prototype.perspectives = function () {
    var list = [{ value: "spectator", label: "Spectator" }];
    var seats = this.seatViewCount;
    var players = isNum(this.header.players) ? this.header.players : seats;
    if (seats && seats === players) {
      for (var s = 0; s < seats; s++) list.push({ value: "seat-" + s, label: "What " + this.seatName(s) + " saw" });
      list.push({ value: "all", label: "Everything revealed" });
    }
    var allowed = this.allowedList();
    if (allowed) {
      list = list.filter(function (p) {
        return p.value === "spectator" || allowed.indexOf(p.value) >= 0;
      });
    }
    return list;
  };
  Viewer.prototype.perspectiveAllowed = function (value) {
    return this.perspectives().some(function (p) {
      return p.value === value;
    });
  };
  Viewer.prototype.buildPerspectives = function () {
    var select = this.el.perspective;
    var options = this.perspectives();
    if (!this.perspectiveAllowed(this.perspective)) this.perspective = "spectator";
    if (!select) return;
    clear(select);
    options.forEach(function (p) {
      select.appendChild(h("option", { value: p.value, text: p.label }));
    });
    select.value = this.perspective;
    select.disabled = options.length < 2;
  };
  Viewer.prototype.buildHeader = function () {
    var box = this.el.header;
    if (!box) return;
    clear(box);
    var head = this.header;
    var self = this;
    box.appendChild(h("span", { class: "viewer-game", text: String(head.game || "?") + (head.variant ? " · " + head.variant : "") }));
    if (head.live) box.appendChild(h("span", { class: "badge badge-live", text: "live" }));
    var seats = arr(head.seats);
    if (seats.length) {
      var list = h("ul", { class: "viewer-seats" });
      seats.forEach(function (s, i) {
        var colour = safeToken(self.seatColour(i));
        list.appendChild(h("li", { "data-seat": i, class: colour ? "colour-" + colour : null }, self.seatName(i)));
      });
      box.appendChild(list);
    }
    var options = obj(head.options);
    var keys = Object.keys(options);
    if (keys.length) {
      box.appendChild(h("span", { class: "viewer-options", text: keys.map(function (k) {
        return k.replace(/_/g, " ") + ": " + text(options[k]);
      }).join(" · ") }));
    }
  };
  Viewer.prototype.buildAllLogs = function () {
    var box = this.el["all-logs"];
    if (!box) return;
    clear(box);
    var lines = arr(this.replay.bot_logs);
    box.hidden = !lines.length;
    if (!lines.length) return;
    var self = this;
    var list = h("ol", { class: "viewer-log-list" });
    lines.slice(0, 5000).forEach(function (line) {
      line = obj(line);
      var step = isNum(line.step) ? line.step : 0;
      list.appendChild(h("li", { class: "viewer-log-line", "data-step": step, "data-seat": line.seat },
        h("button", { type: "button", class: "viewer-log-jump", text: "step " + step, onclick: function () {
          self.pause();
          self.go(step);
        } }), " ", h("span", { class: "viewer-log-seat", text: self.seatName(line.seat) }), " ",
        h("span", { class: "viewer-log-text", text: text(line.line) })));
    });
    box.appendChild(h("details", null, h("summary", { text: "All bot log lines (" + lines.length + ")" }), list));
  };

  Viewer.prototype.viewAt = function (step) {
    var p = this.perspective;
    if (p === "spectator") return { view: this.frameLists.public.get(step), seatViews: null };
    if (p === "all") {
      var seatViews = this.frameLists.seats.map(function (list) {
        return list.get(Math.min(step, list.length() - 1));
      });
      return { view: this.frameLists.public.get(step), seatViews: seatViews };
    }
    var m = /^seat-(\d+)$/.exec(p);
    var list = m ? this.frameLists.seats[parseInt(m[1], 10)] : null;
    if (!list) return { view: this.frameLists.public.get(step), seatViews: null };
    return { view: list.get(Math.min(step, list.length() - 1)), seatViews: null };
  };

  Viewer.prototype.go = function (step, force) {
    var count = this.stepCount();
    if (!count) return;
    step = Math.max(0, Math.min(count - 1, isNum(step) ? Math.floor(step) : 0));
    if (step === this.stepIndex && !force) return;
    this.stepIndex = step;
    this.render();
    writeFragment(step, this.perspective);
  };

  Viewer.prototype.render = function () {
    var step = this.stepIndex;
    if (this.el.step) this.el.step.textContent = String(step);
    if (this.el.slider) this.el.slider.value = String(step);
    this.root.setAttribute("data-step", String(step));
    this.root.setAttribute("data-perspective", this.perspective);
    if (this.el.perspective && this.el.perspective.value !== this.perspective) this.el.perspective.value = this.perspective;
    this.renderAction(step);
    this.renderScores(step);
    this.renderLogs(step);
    this.renderResult(step);
    var board = this.el.board;
    if (!board) return;
    clear(board);
    var got = this.viewAt(step);
    var game = String(this.header.game || obj(got.view).game || "");
    var renderer = Object.prototype.hasOwnProperty.call(RENDERERS, game) ? RENDERERS[game] : renderGeneric;
    var ctx = new Context(this, got.view, step, got.seatViews);
    board.setAttribute("data-game", game);
    try {
      renderer(ctx, board);
      this.markJustMoved(board, game, step);
    } catch (error) {
      clear(board);
      board.appendChild(h("p", { class: "viewer-error", text: "This step could not be drawn as a table (" +
        (error && error.message ? error.message : error) + "); its data follows." }));
      renderGeneric(ctx, board);
      if (window.console) console.error(error);
    }
  };

  /** Highlight the cards that moved at this step (JUST_MOVED), in the same perspective's views. */
  Viewer.prototype.markJustMoved = function (board, game, step) {
    if (!step || !Object.prototype.hasOwnProperty.call(JUST_MOVED, game)) return;
    var ids = JUST_MOVED[game](obj(this.viewAt(step - 1).view), obj(this.viewAt(step).view));
    if (!ids.length) return;
    Array.prototype.forEach.call(board.querySelectorAll(".card[data-card-id]"), function (tile) {
      if (ids.indexOf(tile.getAttribute("data-card-id")) >= 0) {
        tile.classList.add("just-moved");
        tile.title += " (just moved)";
      }
    });
  };

  Viewer.prototype.renderAction = function (step) {
    var box = this.el.action;
    if (!box) return;
    clear(box);
    if (step === 0) {
      box.appendChild(h("span", { class: "viewer-action-text", text: "The start: no action yet." }));
      return;
    }
    var entry = arr(this.replay && this.replay.log)[step - 1];
    if (!entry) {
      box.appendChild(h("span", { class: "viewer-action-text", text: "Step " + step + " (the action is not published while the match is live)." }));
      return;
    }
    entry = obj(entry);
    var source = safeToken(entry.source) || "unknown";
    box.appendChild(h("span", { class: "viewer-action-seat", "data-seat": entry.seat, text: this.seatName(entry.seat) }));
    box.appendChild(this.actionText(entry, step));
    var sourceText = source === "bot" ? "by the bot" : source === "default" ? "default action (fault: " + text(entry.fault || "?") + ")" :
      source === "autopilot" ? "autopilot (seat forfeited)" : text(entry.source);
    box.appendChild(h("span", { class: "badge source source-" + source, "data-source": source, text: sourceText }));
    if (isNum(entry.think_ms)) box.appendChild(h("span", { class: "viewer-think", text: entry.think_ms + " ms" }));
  };

  /** Whether this perspective may read what the acting seat read: its own, or everything revealed. */
  Viewer.prototype.seesOwnAction = function (seat) {
    return this.perspective === "all" || this.perspective === "seat-" + seat;
  };

  /** The action in the engine's words: the acting seat's own label (the action's data in a tooltip,
   * or in place of a label in replays made before labels were recorded) in its perspective or with
   * everything revealed; elsewhere the public label, which names no hidden card or sealed choice. A
   * replay made before public labels were recorded shows no label there: the private one may leak. */
  Viewer.prototype.actionText = function (entry, step) {
    if (this.seesOwnAction(entry.seat)) {
      var label = arr(this.replay.labels)[step - 1];
      return h("span", { class: "viewer-action-text", "data-label": "own", title: compact(entry.action),
                         text: ": " + (typeof label === "string" && label ? label : compact(entry.action)) });
    }
    var publicLabel = arr(this.replay.public_labels)[step - 1];
    if (typeof publicLabel === "string" && publicLabel) {
      return h("span", { class: "viewer-action-text", "data-label": "public", text: ": " + publicLabel });
    }
    return h("span", { class: "viewer-action-text", "data-label": "none",
                       text: " acts (shown in its own perspective, or with everything revealed)" });
  };

  /** Each seat's score at this step (from the public frame), in the header: it changes as the match goes. */
  Viewer.prototype.renderScores = function (step) {
    var box = this.el.scores;
    if (!box) return;
    var view = obj(this.frameLists.public.get(step));
    var game = String(this.header.game || "");
    var key = SCORE_KEYS[game] || "scores";
    var scores = arr(view[key]);
    clear(box);
    box.hidden = !scores.length;
    var self = this;
    scores.forEach(function (score, seat) {
      box.appendChild(h("li", { class: "viewer-score", "data-seat": seat },
        h("span", { class: "viewer-score-seat", text: self.seatName(seat) }), " ",
        h("strong", { class: "viewer-score-value", text: text(score) })));
    });
  };

  Viewer.prototype.renderLogs = function (step) {
    var box = this.el.logs;
    if (!box) return;
    clear(box);
    var hasLogs = arr(this.replay && this.replay.bot_logs).length > 0;
    box.hidden = !hasLogs;
    if (!hasLogs) return;
    var self = this;
    box.appendChild(h("h4", { text: "Bot log at step " + step }));
    var lines = this.logsByStep[step] || [];
    if (!lines.length) {
      box.appendChild(empty("no log line written at this step"));
      return;
    }
    var list = h("ul", { class: "viewer-log-list" });
    lines.forEach(function (line) {
      list.appendChild(h("li", { class: "viewer-log-line current", "data-step": step, "data-seat": line.seat },
        h("span", { class: "viewer-log-seat", text: self.seatName(line.seat) + (isNum(line.decision) ? " · decision " + line.decision : "") }),
        " ", h("span", { class: "viewer-log-text", text: text(line.line) })));
    });
    box.appendChild(list);
  };

  Viewer.prototype.renderResult = function (step) {
    var box = this.el.result;
    if (!box) return;
    clear(box);
    var result = this.replay && this.replay.result;
    var last = step === this.stepCount() - 1;
    box.hidden = !(result && last);
    if (!result || !last) return;
    result = obj(result);
    var self = this;
    var table = h("table", { class: "score-table result-table" },
      h("thead", null, h("tr", null, h("th", { text: "Seat" }), h("th", { text: "Score" }), h("th", { text: "Rank" }),
        h("th", { text: "Status" }), h("th", { text: "Strikes" }))));
    var body = h("tbody");
    arr(result.scores).forEach(function (score, s) {
      body.appendChild(h("tr", { "data-seat": s }, h("th", { text: self.seatName(s) }), h("td", { text: text(score) }),
        h("td", { text: text(arr(result.ranks)[s]) }), h("td", { text: text(arr(result.statuses)[s]) }),
        h("td", { text: text(arr(result.strikes)[s]) })));
    });
    table.appendChild(body);
    box.appendChild(h("h4", { text: "Result" }));
    box.appendChild(table);
  };

  // ------------------------------------------------------------------ jumps and the list of events
  Viewer.prototype.marks = function () {
    var game = String(this.header.game || "");
    return Object.prototype.hasOwnProperty.call(MARKS, game) ? MARKS[game] : [];
  };
  Viewer.prototype.markKey = function (mark, step) {
    try {
      return String(mark.key(obj(this.frameLists.public.get(step))));
    } catch (e) {
      return "";
    }
  };
  /** The first step of the next unit (direction 1) or of this unit, else the previous one (-1). */
  Viewer.prototype.jumpTarget = function (mark, direction) {
    var count = this.stepCount();
    var step = this.stepIndex;
    var key = this.markKey(mark, step);
    if (direction > 0) {
      for (var s = step + 1; s < count; s++) if (this.markKey(mark, s) !== key) return s;
      return count - 1;
    }
    var t = step - 1;
    if (t < 0) return 0;
    key = this.markKey(mark, t) !== key ? this.markKey(mark, t) : key;
    while (t > 0 && this.markKey(mark, t - 1) === key) t--;
    return t;
  };
  Viewer.prototype.jump = function (name, direction) {
    var mark = this.marks().filter(function (m) {
      return m.name === name;
    })[0];
    if (!mark || !this.stepCount()) return;
    this.pause();
    this.go(this.jumpTarget(mark, direction));
  };
  Viewer.prototype.buildMarks = function () {
    var box = document.getElementById("viewer-jumps");
    if (!box) return;
    clear(box);
    var self = this;
    this.marks().forEach(function (mark) {
      box.appendChild(h("span", { class: "viewer-jump", "data-mark": mark.name },
        h("button", { type: "button", class: "viewer-jump-back", "data-mark": mark.name, title: "Previous " + mark.name,
          "aria-label": "Previous " + mark.name, text: "\u2039 " + mark.name, onclick: function () { self.jump(mark.name, -1); } }),
        h("button", { type: "button", class: "viewer-jump-next", "data-mark": mark.name, title: "Next " + mark.name,
          "aria-label": "Next " + mark.name, text: mark.name + " \u203a", onclick: function () { self.jump(mark.name, 1); } })));
    });
    box.hidden = !this.marks().length;
  };
  /** Every step where a unit starts, as a list of links; made when opened (it decodes every frame). */
  Viewer.prototype.buildEvents = function () {
    var box = document.getElementById("viewer-events");
    if (!box) return;
    clear(box);
    var marks = this.marks();
    box.hidden = !marks.length;
    if (!marks.length) return;
    var self = this;
    var list = h("ol", { class: "viewer-event-list" });
    var details = h("details", null, h("summary", { text: "Events (rounds, " + marks.slice(1).map(function (m) {
      return m.name + "s";
    }).join(", ") + ")" }), list);
    details.addEventListener("toggle", function () {
      if (!details.open || list.childNodes.length) return;
      var count = self.stepCount();
      var previous = marks.map(function () { return null; });
      for (var s = 0; s < count; s++) {
        var view = obj(self.frameLists.public.get(s));
        for (var m = 0; m < marks.length; m++) {
          var key = self.markKey(marks[m], s);
          if (key === previous[m]) continue;
          previous[m] = key;
          var label;
          try {
            label = marks[m].label(view, self);
          } catch (e) {
            label = marks[m].name;
          }
          list.appendChild(h("li", { class: "viewer-event mark-" + marks[m].name, "data-step": s },
            h("a", { href: "#step=" + s, text: "step " + s }), " ", h("span", { text: label })));
        }
      }
    });
    box.appendChild(details);
  };

  // ------------------------------------------------------------------ playback
  /** Play a live match as it comes: every step shown in turn, faster while behind the play (at most
   * CATCH_UP_MS to catch up whatever the lag), the chosen speed once caught up; the end comes as
   * one more step. */
  Viewer.prototype.follow = function () {
    this.pause();
    this.following = true;
    this.root.classList.add("is-following");
    this.play(true);
  };
  Viewer.prototype.delay = function () {
    var normal = BASE_DELAY_MS / this.speed;
    if (!this.following) return normal;
    var lag = this.stepCount() - 1 - this.stepIndex;
    if (lag <= 0) return 100; // caught up: look again soon
    return Math.max(MIN_DELAY_MS, Math.min(normal, CATCH_UP_MS / lag));
  };
  Viewer.prototype.play = function (keepPlace) {
    var self = this;
    if (this.timer) return;
    if (!keepPlace && this.stepIndex >= this.stepCount() - 1 && !this.header.live) this.go(0);
    this.root.classList.add("is-playing");
    if (this.el.play) {
      this.el.play.setAttribute("aria-label", "Pause");
      this.el.play.setAttribute("aria-pressed", "true");
    }
    var tick = function () {
      if (self.stepIndex >= self.stepCount() - 1) {
        if (!self.header.live) self.pause();
        else self.timer = setTimeout(tick, self.delay());
        return;
      }
      self.go(self.stepIndex + 1);
      self.timer = setTimeout(tick, self.delay());
    };
    this.timer = setTimeout(tick, this.delay());
  };
  Viewer.prototype.pause = function () {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.following = false;
    this.root.classList.remove("is-following");
    this.root.classList.remove("is-playing");
    if (this.el.play) {
      this.el.play.setAttribute("aria-label", "Play");
      this.el.play.setAttribute("aria-pressed", "false");
    }
  };
  Viewer.prototype.toggle = function () {
    if (this.timer) this.pause();
    else if (this.header.live) this.follow();
    else this.play();
  };
  /** The last step; while live, the viewer then follows the match again. */
  Viewer.prototype.toLast = function () {
    this.pause();
    this.go(this.stepCount() - 1);
    if (this.header.live) this.follow();
  };
  Viewer.prototype.setSpeed = function (speed) {
    speed = parseFloat(speed);
    this.speed = SPEEDS.indexOf(speed) >= 0 ? speed : 1;
    if (this.el.speed) this.el.speed.value = String(this.speed);
  };
  Viewer.prototype.setPerspective = function (value) {
    if (!this.perspectiveAllowed(value)) value = "spectator";
    this.wantedPerspective = value;
    var self = this;
    if (value !== "spectator" && !this.seatViewsHeld()) {
      // the spectator's view stays until the seats' views are here; the last choice wins
      return this.loadSeatViews().then(function () {
        if (self.wantedPerspective === value) self.setPerspective(value);
      }, function () {});
    }
    this.perspective = value;
    this.go(this.stepIndex, true);
    return Promise.resolve();
  };
  Viewer.prototype.seatViewsHeld = function () {
    return this.frameLists.seats.length > 0;
  };
  /** The seats' views of a replay served in parts (data-seats-url), fetched once. */
  Viewer.prototype.loadSeatViews = function () {
    var self = this;
    if (this.seatsRequest) return this.seatsRequest;
    this.root.setAttribute("data-seats", "loading");
    this.setStatus("Loading what each seat saw…");
    var request = this.seatsRequest = fetchReplay(this.root.getAttribute("data-seats-url")).then(function (part) {
      if (self.seatsRequest !== request) return; // a newer replay came meanwhile: its views are asked anew
      self.frameLists.seats = arr(obj(part).views).map(function (frames) {
        return new FrameList(frames);
      });
      self.root.setAttribute("data-seats", "loaded");
      self.setStatus("");
    }).catch(function (error) {
      if (self.seatsRequest === request) self.seatsRequest = null; // asked again at the next pick
      self.root.setAttribute("data-seats", "failed");
      self.setStatus("Could not load what each seat saw: " + (error && error.message ? error.message : error), true);
      throw error;
    });
    return request;
  };

  Viewer.prototype.bind = function () {
    var self = this;
    var el = this.el;
    function on(node, event, handler) {
      if (node) node.addEventListener(event, handler);
    }
    on(el.play, "click", function () {
      self.toggle();
    });
    on(el.back, "click", function () {
      self.pause();
      self.go(self.stepIndex - 1);
    });
    on(el.forward, "click", function () {
      self.pause();
      self.go(self.stepIndex + 1);
    });
    on(el.first, "click", function () {
      self.pause();
      self.go(0);
    });
    on(el.last, "click", function () {
      self.toLast();
    });
    on(el.slider, "input", function () {
      self.go(parseInt(el.slider.value, 10));
    });
    on(el.speed, "change", function () {
      self.setSpeed(el.speed.value);
    });
    on(el.perspective, "change", function () {
      self.setPerspective(el.perspective.value);
    });
    on(window, "hashchange", function () {
      var f = readFragment();
      var view = f.view && f.view !== self.perspective && self.perspectiveAllowed(f.view) ? f.view : null;
      if (view && (view === "spectator" || self.seatViewsHeld())) {
        self.perspective = view;
        view = null;
      }
      self.go(f.step !== null ? f.step : self.stepIndex, true);
      if (view) self.setPerspective(view); // drawn once the seats' views are here
    });
    on(document, "keydown", function (event) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      var target = event.target || {};
      var tag = String(target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea" || target.isContentEditable) return;
      var key = event.key;
      if ((tag === "button" || tag === "a" || tag === "summary") && (key === " " || key === "Spacebar" || key === "Enter")) return;
      if (key === "ArrowLeft") {
        self.pause();
        self.go(self.stepIndex - 1);
      } else if (key === "ArrowRight") {
        self.pause();
        self.go(self.stepIndex + 1);
      } else if (key === " " || key === "Spacebar") {
        self.toggle();
      } else if (key === "Home") {
        self.pause();
        self.go(0);
      } else if (key === "End") {
        self.toLast();
      } else {
        return;
      }
      event.preventDefault();
    });
    if (el.speed) this.setSpeed(el.speed.value || 1);
  };

  // ------------------------------------------------------------------ the URL fragment and fetching
  /** "#step=12&view=seat-1" -> {step: 12, view: "seat-1"} (missing parts are null). */
  function parseFragment(hash) {
    var out = { step: null, view: null };
    String(hash || "").replace(/^#/, "").split("&").forEach(function (part) {
      var eq = part.indexOf("=");
      if (eq < 0) return;
      var key = decodeURIComponent(part.slice(0, eq));
      var value = decodeURIComponent(part.slice(eq + 1));
      if (key === "step" && /^\d+$/.test(value)) out.step = parseInt(value, 10);
      if (key === "view" && /^(spectator|all|seat-\d+)$/.test(value)) out.view = value;
    });
    return out;
  }
  /** The fragment with step and view set, other parameters kept. */
  function buildFragment(hash, step, view) {
    var parts = String(hash || "").replace(/^#/, "").split("&").filter(function (part) {
      return part && !/^(step|view)=/.test(part);
    });
    parts.unshift("view=" + encodeURIComponent(view));
    parts.unshift("step=" + step);
    return "#" + parts.join("&");
  }
  function readFragment() {
    return parseFragment(window.location.hash);
  }
  function writeFragment(step, view) {
    var hash = buildFragment(window.location.hash, step, view);
    if (hash === window.location.hash) return;
    if (window.history && window.history.replaceState) {
      window.history.replaceState(window.history.state, "", hash);
    } else {
      window.location.hash = hash;
    }
  }
  function fetchReplay(url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.arrayBuffer();
    }).then(function (buffer) {
      var bytes = new Uint8Array(buffer);
      // a stored replay file (gzip) served as it is: decompress it here when the browser can
      if (bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b && typeof DecompressionStream === "function") {
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
        return new Response(stream).text();
      }
      return new TextDecoder("utf-8").decode(bytes);
    }).then(function (body) {
      return JSON.parse(body);
    });
  }

  // ------------------------------------------------------------------ start
  function start() {
    var root = document.getElementById("viewer");
    if (!root || root.getAttribute("data-viewer-started")) return null;
    root.setAttribute("data-viewer-started", "true");
    var viewer = new Viewer(root);
    viewer.bind();
    viewer.load();
    window.parlourViewer = viewer;
    return viewer;
  }

  window.ParlourViewer = {
    patch: patch,
    FrameList: FrameList,
    renderers: RENDERERS,
    parseFragment: parseFragment,
    buildFragment: buildFragment,
    Viewer: Viewer,
    start: start,
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
