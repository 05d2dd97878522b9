/* Parlour replay viewer: plain JavaScript, no framework, no build step.
 *
 * The core: reads a replay (the JSON documented at the top of referee/replay.py) from the
 * container's data-replay-url and keeps its frames, the controls, the perspectives (the spectator,
 * one seat, or every seat's own view side by side: "everything revealed"), the jumps and events, and
 * a live match's following. Each game's board is drawn by its renderer, a file in the game's own
 * package that registers itself (ParlourViewer.register) and is loaded after this one; a game with
 * none is drawn as a readable outline. docs/viewer.md lists the extension points, element ids and
 * classes.
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
        else if (key === "onclick") {
          element.addEventListener("click", value);
          element.setAttribute("data-redraw", ""); // its listener is this drawing's: never kept by morph
        }
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
  /** Make ``live``'s children what ``fresh``'s are, keeping every node that stays the same kind: a
   * step then restyles and lays out only what changed (a 6-seat table is thousands of nodes). A
   * node marked ``data-redraw`` (it carries listeners of its own drawing) is always replaced. */
  function morph(live, fresh) {
    var a = live.firstChild, b = fresh.firstChild;
    while (b) {
      var nextB = b.nextSibling;
      if (a && sameKind(a, b)) {
        if (a.nodeType === 1) {
          syncAttributes(a, b);
          morph(a, b);
        } else if (a.nodeValue !== b.nodeValue) {
          a.nodeValue = b.nodeValue;
        }
        a = a.nextSibling;
      } else if (a) {
        live.insertBefore(b, a);
      } else {
        live.appendChild(b);
      }
      b = nextB;
    }
    while (a) {
      var nextA = a.nextSibling;
      live.removeChild(a);
      a = nextA;
    }
  }
  function sameKind(a, b) {
    if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
    return a.nodeType !== 1 || !(a.hasAttribute("data-redraw") || b.hasAttribute("data-redraw"));
  }
  function syncAttributes(a, b) {
    var i, name;
    for (i = a.attributes.length - 1; i >= 0; i--) {
      name = a.attributes[i].name;
      if (!b.hasAttribute(name)) a.removeAttribute(name);
    }
    for (i = 0; i < b.attributes.length; i++) {
      name = b.attributes[i].name;
      if (a.getAttribute(name) !== b.attributes[i].value) a.setAttribute(name, b.attributes[i].value);
    }
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


  // ------------------------------------------------------------------ the generic renderer (a game without one)
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

  // ------------------------------------------------------------------ the games' renderers
  /** The cards of a view, by id, in order (a renderer's justMoved compares two steps' ids). */
  function idsIn(value, out) {
    out = out || [];
    if (Array.isArray(value)) value.forEach(function (x) { idsIn(x, out); });
    else if (value !== null && typeof value === "object") {
      if (typeof value.id === "string") out.push(value.id);
      Object.keys(value).forEach(function (k) { if (k !== "id") idsIn(value[k], out); });
    }
    return out;
  }
  /** The id of the card on top of a trick ([{seat, card}], bottom to top), or null. */
  function topCardId(trick) {
    var last = obj(arr(trick)[arr(trick).length - 1]);
    return obj(last.card).id || null;
  }

  /** Each game's renderer, by game id, as its package's renderer.js registers it (docs/viewer.md):
   * {render(ctx, board), scoreKey, marks, justMoved(before, now)}; a game with none is drawn by
   * GENERIC. */
  var RENDERERS = {};
  var GENERIC = { render: renderGeneric, scoreKey: "scores", marks: [], justMoved: null };

  function register(gameId, renderer) {
    if (typeof gameId !== "string" || !renderer || typeof renderer.render !== "function") {
      throw new Error("ParlourViewer.register(gameId, {render: function (ctx, board) {...}, ...})");
    }
    RENDERERS[gameId] = renderer;
    var running = window.parlourViewer;
    if (running && running.replay && String(running.header.game || "") === gameId) running.refresh();
  }
  function rendererFor(game) {
    return Object.prototype.hasOwnProperty.call(RENDERERS, game) ? RENDERERS[game] : GENERIC;
  }

  // ================================================================== the viewer
  var SPEEDS = [0.5, 1, 2, 4, 8, 16];
  var BASE_DELAY_MS = 1000;

  function Viewer(root) {
    this.root = root;
    this.el = {};
    var ids = ["board", "step", "step-count", "slider", "play", "back", "forward", "first", "last", "speed",
      "perspective", "action", "logs", "status", "header", "result", "download", "all-logs", "scores", "notes"];
    for (var i = 0; i < ids.length; i++) this.el[ids[i]] = document.getElementById("viewer-" + ids[i]);
    this.replay = null;
    this.header = {};
    this.stepIndex = 0;
    this.perspective = "spectator";
    this.timer = null;
    this.pollTimer = null;
    this.following = false; // at the head of a live match: the newest frame drawn as frames arrive
    this.headPending = false;
    this.liveRequest = null;
    this.speed = 1;
    this.frameLists = { public: new FrameList([]), seats: [] };
    this.seatViewCount = 0; // seats with views of their own, held or still to fetch (data-seats-url)
    this.seatsRequest = null;
    this.wantedPerspective = null;
    this.logsByStep = {};
    this.notesByStep = {};
    this.ui = {}; // what the user opened in the board, kept from step to step
  }

  Viewer.prototype.seatName = function (seat) {
    if (!isNum(seat)) return "—";
    var seats = arr(this.header.seats);
    var entry = obj(seats[seat]);
    var name = entry.bot ? String(entry.bot) + (entry.version ? " v" + String(entry.version) : "") : "";
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
    s.classList.remove("viewer-ended");
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
    // a replay served in parts (webui/views/matches.py) says how many seats have views, fetched when a
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
    this.notesByStep = {};
    arr(replay.notes).forEach(function (entry) {
      entry = obj(entry);
      var step = isNum(entry.step) ? entry.step : 0;
      (self.notesByStep[step] = self.notesByStep[step] || []).push(entry);
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
    this.emit("parlour:replay", { replay: replay, first: !!first });
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

  /** Long polling (webui/views/matches.py): ask for the frames after the last one held; the server answers
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
    this.toHead();
    this.root.setAttribute("data-frames", String(this.stepCount()));
    this.emit("parlour:frames", { count: this.stepCount() });
  };
  /** The match is over: say so; once recorded, its whole replay takes over (at the last step when the
   * page was at the head), and the viewer offers to watch it from the start. */
  Viewer.prototype.liveEnded = function (status) {
    var self = this;
    if (status !== "finished") {
      this.pause();
      this.header.live = false;
      this.root.classList.remove("is-live");
      this.buildHeader();
      this.showEnded("The match was " + text(status) + ".", status === "aborted");
      return;
    }
    fetchReplay(this.root.getAttribute("data-replay-url")).then(function (replay) {
      var atHead = self.following || self.stepIndex >= self.stepCount() - 1;
      self.pause();
      self.setReplay(replay, false);
      if (atHead) self.go(self.stepCount() - 1);
      self.showEnded("The match is over.", false);
    }).catch(function () {
      self.pollTimer = setTimeout(function () { self.liveEnded(status); }, 2000);
    });
  };
  /** The end of a followed match in the status line, with the replay offered from its start. */
  Viewer.prototype.showEnded = function (message, isError) {
    var self = this;
    this.setStatus(message, isError);
    this.emit("parlour:ended", { message: message });  // a page that follows matches moves on (tv.js)
    if (!this.el.status || !this.stepCount()) return;
    this.el.status.classList.add("viewer-ended");
    this.el.status.appendChild(document.createTextNode(" "));
    this.el.status.appendChild(h("button", { type: "button", class: "viewer-watch-replay",
      text: "Watch the replay from the start", onclick: function () {
        self.setStatus("");
        self.go(0);
        self.play(true);
      } }));
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

  /** Everything the game's renderer gives drawn again (a renderer registered after the start). */
  Viewer.prototype.refresh = function () {
    this.buildMarks();
    this.buildEvents();
    this.render();
  };

  /** Tell whatever is built on the core (docs/viewer.md, "Extending the core"): an event on #viewer
   * that bubbles, ``detail`` holding the viewer and what the event is about. */
  Viewer.prototype.emit = function (name, detail) {
    detail = detail || {};
    detail.viewer = this;
    this.root.dispatchEvent(new CustomEvent(name, { bubbles: true, detail: detail }));
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
    this.renderNotes(step);
    this.renderResult(step);
    var live = this.el.board;
    if (!live) return;
    var got = this.viewAt(step);
    var game = String(this.header.game || obj(got.view).game || "");
    var self = this;
    drawBoard(live, game, new Context(this, got.view, step, got.seatViews), function (board) {
      self.markJustMoved(board, game, step);
    });
    this.emit("parlour:step", { step: step, perspective: this.perspective, view: got.view, seatViews: got.seatViews });
  };

  /** Draw ``ctx``'s view with ``game``'s renderer into ``live``: drawn apart, then ``live`` morphed
   * into it (only what changed is touched); ``decorate(board)`` runs on the fresh board. A renderer
   * that throws is replaced by the generic outline, with a note. */
  function drawBoard(live, game, ctx, decorate) {
    live.setAttribute("data-game", game);
    var board = live.cloneNode(false);
    try {
      rendererFor(game).render(ctx, board);
      if (decorate) decorate(board);
    } catch (error) {
      clear(board);
      board.appendChild(h("p", { class: "viewer-error", text: "This step could not be drawn as a table (" +
        (error && error.message ? error.message : error) + "); its data follows." }));
      renderGeneric(ctx, board);
      if (window.console) console.error(error);
    }
    morph(live, board);
  }

  /**
   * One seat's view drawn outside a replay, as a replay's step is: a person's table draws the
   * observation its seat was sent (webui/static/webui/table.js). ``table``: ``{game, players,
   * seats: [{bot}], ui}`` (the seats' names, as a replay's header gives them; ``ui``: what the person
   * opened on the board, kept from one drawing to the next). The view's ``seat`` is the perspective.
   */
  function drawView(element, table, view) {
    table = obj(table);
    var holder = Object.create(Viewer.prototype); // its seat names and colours, nothing else
    holder.header = { game: table.game, players: table.players, seats: arr(table.seats) };
    holder.ui = table.ui || {};
    drawBoard(element, String(table.game || ""), new Context(holder, view, 0, null));
  }

  /** Highlight the cards that moved at this step (the renderer's justMoved), in the same perspective's views. */
  Viewer.prototype.markJustMoved = function (board, game, step) {
    var justMoved = rendererFor(game).justMoved;
    if (!step || typeof justMoved !== "function") return;
    var ids = arr(justMoved(obj(this.viewAt(step - 1).view), obj(this.viewAt(step).view)));
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
    var key = rendererFor(game).scoreKey || "scores";
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

  /** The seats this page's user owns (data-own-seats on the viewer), for the replay-decide command. */
  Viewer.prototype.ownSeats = function () {
    var raw = this.root.getAttribute("data-own-seats") || "";
    return raw.split(",").filter(function (x) { return x !== ""; }).map(Number);
  };

  /**
   * The decision notes at this step (replay.notes: what the replay JSON lets this user read), each as
   * a panel: the value estimate, bars for the actions' shares of the visits (or the policy), the
   * text, and the value over the match for that seat as a small chart; then, at a step of a seat of
   * this user's, the command that asks their bot that decision again (python -m bots_sdk replay decide).
   */
  Viewer.prototype.renderNotes = function (step) {
    var box = this.el.notes;
    if (!box) return;
    clear(box);
    var notes = this.notesByStep[step] || [];
    var entry = step > 0 ? obj(arr(this.replay && this.replay.log)[step - 1]) : {};
    var own = this.ownSeats();
    var command = isNum(entry.seat) && entry.source !== "autopilot" && own.indexOf(entry.seat) >= 0;
    box.hidden = !notes.length && !command;
    if (box.hidden) return;
    var self = this;
    notes.forEach(function (item) {
      var note = obj(item.note);
      var panel = h("section", { class: "viewer-note", "data-seat": item.seat, "data-step": step },
        h("h4", { text: "Note of " + self.seatName(item.seat) + (isNum(item.decision) ? " · decision " + item.decision : "") }));
      if (isNum(note.value)) panel.appendChild(h("p", { class: "viewer-note-value" }, "Value ", h("strong", { text: note.value })));
      var shares = note.visits || note.policy;
      if (shares && typeof shares === "object") {
        var keys = Object.keys(shares);
        var total = keys.reduce(function (sum, k) { return sum + (isNum(shares[k]) ? shares[k] : 0); }, 0);
        var bars = h("table", { class: "viewer-note-bars" });
        keys.forEach(function (k) {
          var n = isNum(shares[k]) ? shares[k] : 0;
          var pct = total > 0 ? Math.round((1000 * n) / total) / 10 : 0;
          var fill = h("span", { class: "viewer-note-fill", "data-share": pct });
          fill.style.width = pct + "%"; // the CSSOM, which the site's CSP allows (a style attribute it does not)
          bars.appendChild(h("tr", { class: "viewer-note-bar" },
            h("td", { class: "viewer-note-label", text: k }),
            h("td", { class: "viewer-note-track" }, fill),
            h("td", { class: "viewer-note-count", text: note.visits ? n + " (" + pct + "%)" : pct + "%" })));
        });
        panel.appendChild(bars);
      }
      if (note.text) panel.appendChild(h("p", { class: "viewer-note-text", text: text(note.text) }));
      if (note.dropped) panel.appendChild(h("p", { class: "viewer-note-text", text: "dropped: " + text(note.dropped) }));
      var chart = self.valueChart(item.seat, step);
      if (chart) panel.appendChild(chart);
      box.appendChild(panel);
    });
    if (command) {
      var file = this.root.getAttribute("data-replay-file") || "REPLAY";
      var line = "python -m bots_sdk replay decide " + file + " --step " + step + " --seat " + entry.seat +
        " my_bot.py:MyBot --pdb";
      box.appendChild(h("p", { class: "viewer-decide" }, "Ask your bot this decision again (download the replay): ",
        h("code", { class: "viewer-decide-command", text: line })));
    }
  };

  /** The value a seat's notes gave over the match, as a small SVG line; the current step marked. */
  Viewer.prototype.valueChart = function (seat, step) {
    var points = [];
    var self = this;
    Object.keys(this.notesByStep).forEach(function (key) {
      self.notesByStep[key].forEach(function (item) {
        if (item.seat === seat && isNum(obj(item.note).value)) points.push([Number(key), obj(item.note).value]);
      });
    });
    if (points.length < 2) return null;
    points.sort(function (a, b) { return a[0] - b[0]; });
    var W = 300, H = 60, last = Math.max(1, this.stepCount() - 1);
    var lo = Math.min(0, Math.min.apply(null, points.map(function (p) { return p[1]; })));
    var hi = Math.max(1, Math.max.apply(null, points.map(function (p) { return p[1]; })));
    function x(s) { return (W * s) / last; }
    function y(v) { return H - (H * (v - lo)) / (hi - lo || 1); }
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("class", "viewer-note-chart");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "value over the match: " + points.length + " notes");
    var line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", points.map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1); }).join(" "));
    line.setAttribute("class", "viewer-note-line");
    svg.appendChild(line);
    var mark = document.createElementNS(ns, "line");
    mark.setAttribute("x1", x(step).toFixed(1));
    mark.setAttribute("x2", x(step).toFixed(1));
    mark.setAttribute("y1", "0");
    mark.setAttribute("y2", String(H));
    mark.setAttribute("class", "viewer-note-now");
    svg.appendChild(mark);
    var title = document.createElementNS(ns, "title");
    title.textContent = points.map(function (p) { return "step " + p[0] + ": " + p[1]; }).join("\n");
    svg.appendChild(title);
    return svg;
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
    return arr(rendererFor(game).marks);
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
    var details = h("details", null, h("summary", { text: "Events (" + marks.map(function (m) {
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
  /** Follow a live match at its head: whenever frames arrive, the newest is drawn (never every
   * step in between: a 6-seat Bszzzz! match plays hundreds of steps a second), so the page shows
   * the play within a frame of the answer whatever the lag; the history stays there to scrub.
   * Pausing, stepping or jumping stops following; End (or the last-step button) follows again. */
  Viewer.prototype.follow = function () {
    this.pause();
    this.following = true;
    this.root.classList.add("is-following");
    this.root.classList.add("is-playing");
    if (this.el.play) {
      this.el.play.setAttribute("aria-label", "Pause");
      this.el.play.setAttribute("aria-pressed", "true");
    }
    this.toHead();
  };
  /** Draw the newest frame at the next animation frame (arrivals in between are drawn once). */
  Viewer.prototype.toHead = function () {
    var self = this;
    if (!this.following || this.headPending) return;
    this.headPending = true;
    var draw = function () {
      self.headPending = false;
      if (self.following && self.stepIndex !== self.stepCount() - 1) self.go(self.stepCount() - 1);
    };
    if (document.hidden || !window.requestAnimationFrame) setTimeout(draw, 0);
    else requestAnimationFrame(draw);
  };
  Viewer.prototype.delay = function () {
    return BASE_DELAY_MS / this.speed;
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
        else self.follow(); // played up to the head of a live match: follow it from there
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
    this.headPending = false;
    this.following = false;
    this.root.classList.remove("is-following");
    this.root.classList.remove("is-playing");
    if (this.el.play) {
      this.el.play.setAttribute("aria-label", "Play");
      this.el.play.setAttribute("aria-pressed", "false");
    }
  };
  Viewer.prototype.toggle = function () {
    if (this.timer || this.following) this.pause();
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
      self.pause(); // scrubbing the history stops following the head
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
      if (f.step !== null) self.pause(); // a link to a step: stay there
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
    register: register,
    renderers: RENDERERS,
    parseFragment: parseFragment,
    buildFragment: buildFragment,
    Viewer: Viewer,
    start: start,
    drawView: drawView,
    // what a renderer (or a panel built on the core) draws with: the DOM without HTML parsing,
    // cards as tiles, the page's card texts, the usual board pieces
    kit: {
      has: has, arr: arr, obj: obj, isNum: isNum, safeToken: safeToken, text: text, compact: compact,
      cardInfo: cardInfo, cardName: cardName, h: h, add: add, clear: clear, section: section, kv: kv, row: row,
      empty: empty, card: card, cardBack: cardBack, backs: backs, genericCard: genericCard,
      genericValue: genericValue, scoreTable: scoreTable, statusLine: statusLine, seatList: seatList,
      idsIn: idsIn, topCardId: topCardId,
    },
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
