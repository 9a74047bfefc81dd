// The match viewer: steps through every decision of a finished match in one view (all
// cards, or one seat's observation), from /api/v1/matches/ID/replay?view=V.
// Frames come as differences; they are expanded once so any position shows at once.
// Each frame's table (the game's own drawing, arena/games/<game>/drawing.py) is laid out by
// drawTable, the one renderer for every game; the raw fields fold away below it.
"use strict";
(function () {
  var root = document.getElementById("viewer");
  if (!root) return;

  var SUITS = { C: ["\u2663", "black", "clubs"], D: ["\u2666", "red", "diamonds"],
                H: ["\u2665", "red", "hearts"], S: ["\u2660", "black", "spades"] };
  var RANKS = { T: "10" };
  var CARD = /^([2-9TJQKA])([CDHS])$/;
  var STRIKES = { timeout: 1, illegal: 1, malformed: 1, disconnected: 1 };
  var NOT_PER_SEAT = { hand: 1, pile: 1, deck: 1, future: 1, discard: 1, stock: 1, pack: 1 };
  var COLOURS = ["#1d4e89", "#c0392b", "#27813e", "#8e44ad", "#d35400", "#16a085"];

  var ui = {
    decision: document.getElementById("decision"), board: document.getElementById("board"),
    state: document.getElementById("state"), table: document.getElementById("table"),
    raw: document.getElementById("raw"), list: document.getElementById("decisions"),
    jump: document.getElementById("jump"), total: document.getElementById("total"),
    view: document.getElementById("view"), play: root.querySelector("[data-act=play]")
  };
  var data = null, frames = [], tables = [], pos = 0, timer = null;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function label(key) { return key.replace(/_/g, " "); }
  function seatName(seat) { return "seat " + seat + " (" + data.seats[seat] + ")"; }

  function card(code) {
    var node = el("span", "card");
    node.dataset.card = code;
    if (code === "RJ" || code === "BJ") {
      node.classList.add(code === "RJ" ? "red" : "black", "joker");
      node.textContent = "\u2605";
      node.title = (code === "RJ" ? "red" : "black") + " joker";
      return node;
    }
    var m = CARD.exec(code), suit = SUITS[m[2]];
    node.classList.add(suit[1]);
    node.appendChild(el("span", "rank", RANKS[m[1]] || m[1]));
    node.appendChild(el("span", "suit", suit[0]));
    node.title = (RANKS[m[1]] || m[1]) + " of " + suit[2];
    return node;
  }

  function isCard(value) { return typeof value === "string" && (CARD.test(value) || value === "RJ" || value === "BJ"); }

  function perSeat(key, value) {
    return !NOT_PER_SEAT[key] && value.length === data.num_players && value.length > 1 &&
      value.every(function (v) { return typeof v !== "string"; });
  }

  function render(value, key) {
    if (value === null || value === undefined) return el("span", "none", "\u2013");
    if (typeof value === "string") {
      if (isCard(value)) return card(value);
      var token = el("span", "token", label(value));
      token.dataset.token = value;
      return token;
    }
    if (typeof value !== "object") return el("span", "scalar", String(value));
    if (Array.isArray(value)) {
      if (!value.length) return el("span", "none", "none");
      if (perSeat(key, value)) {
        var table = el("div", "per-seat");
        value.forEach(function (v, seat) {
          var row = el("div", "seat-row");
          row.dataset.seat = seat;
          row.appendChild(el("span", "who", seatName(seat)));
          row.appendChild(render(v, key));
          table.appendChild(row);
        });
        return table;
      }
      var list = el("div", value.every(isCard) ? "cards" : "items");
      value.forEach(function (v) { list.appendChild(render(v, key)); });
      return fold(list, value.length, 40);
    }
    var keys = Object.keys(value), dl = el("dl", "object");
    keys.forEach(function (k) {
      dl.appendChild(el("dt", null, label(k)));
      var dd = el("dd");
      dd.appendChild(render(value[k], k));
      dl.appendChild(dd);
    });
    return fold(dl, keys.length, 12);
  }

  // Long lists and big objects (a deck, a card catalogue) fold away behind their size.
  function fold(node, size, limit) {
    if (size <= limit) return node;
    var details = el("details", "fold");
    details.appendChild(el("summary", null, size + " entries"));
    details.appendChild(node);
    return details;
  }

  function field(key, value, main) {
    var box = el("section", "field" + (main ? " main" : ""));
    box.dataset.field = key;
    box.appendChild(el("h4", null, key === "hand" ? "hand of " + seatName(data.view) : label(key)));
    box.appendChild(render(value, key));
    return box;
  }

  function isScalar(value) { return value === null || typeof value !== "object" && !isCard(value); }

  // The hand first, then one panel of the plain facts (phase, counts, turn), then the piles,
  // hands, trips and other structured fields.
  function drawState(fields) {
    var out = document.createDocumentFragment(), keys = Object.keys(fields);
    if ("hand" in fields) out.appendChild(field("hand", fields.hand, true));
    var facts = keys.filter(function (k) { return k !== "hand" && isScalar(fields[k]); });
    if (facts.length) {
      var box = el("section", "field facts"), dl = el("dl", "object");
      box.dataset.field = "facts";
      facts.forEach(function (k) {
        dl.appendChild(el("dt", null, label(k)));
        var dd = el("dd");
        dd.dataset.field = k;
        dd.appendChild(render(fields[k], k));
        dl.appendChild(dd);
      });
      box.appendChild(dl);
      out.appendChild(box);
    }
    keys.forEach(function (key) {
      if (key !== "hand" && facts.indexOf(key) < 0) out.appendChild(field(key, fields[key], false));
    });
    ui.state.replaceChildren(out);
  }

  // One card of a table: a standard playing card's face, or a game's own card (label, colour,
  // a line under it, its rule text as the title). "on": lies on the card before it; "down":
  // face down (known only to the all-cards view); "last": laid by the last decision.
  function face(index) {
    var f = data.faces[index], node;
    if (f.code) node = card(f.code);
    else {
      node = el("span", "card named");
      node.dataset.card = f.id;
      node.dataset.kind = f.kind || "";
      if (f.colour) {
        node.style.background = f.colour;
        node.classList.add(light(f.colour) ? "ink-dark" : "ink-light");
      }
      node.appendChild(el("span", "label", f.label));
      if (f.sub) node.appendChild(el("span", "sub", f.sub));
    }
    if (f.title) node.title = f.title;
    ["on", "down", "last"].forEach(function (flag) { if (f[flag]) node.classList.add(flag); });
    return node;
  }

  function light(colour) {
    var m = /^#(..)(..)(..)$/.exec(colour);
    if (!m) return false;
    var r = parseInt(m[1], 16), g = parseInt(m[2], 16), b = parseInt(m[3], 16);
    return 0.299 * r + 0.587 * g + 0.114 * b > 150;
  }

  function drawArea(area) {
    var box = el("div", "area");
    box.dataset.area = area.name;
    if (area.title) box.title = area.title;
    var head = el("span", "area-name", area.name);
    if (area.count !== undefined) head.appendChild(el("span", "count", " " + area.count));
    box.appendChild(head);
    var row = el("div", "cards");
    area.cards.forEach(function (i) { row.appendChild(face(i)); });
    if (area.hidden) {
      for (var i = 0; i < Math.min(area.hidden, 6); i++) row.appendChild(el("span", "card back" + (i ? " on" : "")));
      var backs = el("span", "backs", "\u00d7" + area.hidden);
      backs.dataset.hidden = area.hidden;
      row.appendChild(backs);
    }
    if (!area.cards.length && !area.hidden) row.appendChild(el("span", "none", "none"));
    box.appendChild(row);
    return box;
  }

  function drawFacts(facts, cls) {
    var line = el("dl", "table-facts" + (cls ? " " + cls : ""));
    facts.forEach(function (f) {
      line.appendChild(el("dt", null, f[0]));
      line.appendChild(el("dd", null, String(f[1])));
    });
    return line;
  }

  function drawSeat(seat, toPlay, acted) {
    var box = el("section", "seat" + (seat.seat === toPlay ? " turn" : "") + (seat.seat === acted ? " acted" : ""));
    box.dataset.seat = seat.seat;
    box.style.borderColor = COLOURS[seat.seat % COLOURS.length];
    var head = el("h4", "seat-name", "seat " + seat.seat + ": " + data.seats[seat.seat]);
    if (seat.seat === toPlay) head.appendChild(el("span", "to-play", " \u25b6 to play"));
    box.appendChild(head);
    if (seat.facts.length) box.appendChild(drawFacts(seat.facts));
    seat.areas.forEach(function (a) { box.appendChild(drawArea(a)); });
    return box;
  }

  // The seats around the middle of the table: the viewing seat (seat 0 in the all-cards view)
  // at the bottom, the others across from it.
  function drawTable(at) {
    var t = tables[at];
    if (!t) { ui.table.replaceChildren(); return; }
    var total = data.decisions.length;
    var toPlay = at < total ? data.decisions[at][1] : -1, acted = at > 0 ? data.decisions[at - 1][1] : -1;
    var home = typeof data.view === "number" ? data.view : 0;
    var across = el("div", "seats across"), near = el("div", "seats near"), felt = el("div", "felt");
    t.seats.forEach(function (s) { (s.seat === home ? near : across).appendChild(drawSeat(s, toPlay, acted)); });
    if (t.facts && t.facts.length) felt.appendChild(drawFacts(t.facts, "middle"));
    var middle = el("div", "middle");
    t.areas.forEach(function (a) { middle.appendChild(drawArea(a)); });
    felt.appendChild(middle);
    ui.table.replaceChildren(across, felt, near);
  }

  var SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A map (Trekking the World): places, connections, cubes still on the board, and each
  // seat's traveller.
  function drawBoard(fields) {
    var board = data.board;
    if (!board) { ui.board.replaceChildren(); return; }
    var where = {}, cubes = fields.cubes || {}, positions = fields.positions || [];
    board.places.forEach(function (p) { where[p.id] = p; });
    var map = svg("svg", { viewBox: "0 0 " + board.width + " " + board.height, "class": "map", role: "img",
                           "aria-label": "map with each traveller's position" });
    board.regions.forEach(function (r) {
      map.appendChild(svg("rect", { x: r.x + 4, y: r.y + 4, width: board.width / 3 - 8, height: board.height / 2 - 8,
                                    rx: 10, "class": "region" }));
      map.appendChild(svg("text", { x: r.x + 12, y: r.y + 22, "class": "region-name" }, r.name));
    });
    board.connections.forEach(function (c) {
      var a = where[c[0]], b = where[c[1]];
      if (a && b) map.appendChild(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, "class": "route" }));
    });
    board.places.forEach(function (p) {
      var g = svg("g", { "class": "place " + p.kind, "data-place": p.id });
      var dot = svg("circle", { cx: p.x, cy: p.y, r: p.kind === "airport" ? 11 : 8,
                                fill: cubes[p.id] ? cubes[p.id] : (p.kind === "airport" ? "#dde6f0" : "#f7f7f2") });
      dot.appendChild(svg("title", {}, p.name + (cubes[p.id] ? " (" + cubes[p.id] + " cube)" : "")));
      g.appendChild(dot);
      g.appendChild(svg("text", { x: p.x, y: p.y + 22, "class": "place-name" }, p.name));
      map.appendChild(g);
    });
    var before = pos > 0 ? frames[pos - 1].positions || [] : [];
    positions.forEach(function (place, seat) {
      if (!before[seat] || before[seat] === place) return;
      var path = route(board, before[seat], place);
      var points = path.map(function (id) { return where[id] ? where[id].x + "," + where[id].y : ""; }).join(" ");
      var line = svg("polyline", { points: points, "class": "last-route", "data-seat": seat,
                                   stroke: COLOURS[seat % COLOURS.length] });
      line.appendChild(svg("title", {}, seatName(seat) + ": " + path.map(function (id) {
        return where[id] ? where[id].name : id; }).join(" \u2192 ")));
      map.appendChild(line);
    });
    positions.forEach(function (place, seat) {
      var p = where[place];
      if (!p) return;
      var dx = (seat - (positions.length - 1) / 2) * 9;
      var token = svg("g", { "class": "traveller", "data-seat": seat });
      token.appendChild(svg("circle", { cx: p.x + dx, cy: p.y - 12, r: 7, fill: COLOURS[seat % COLOURS.length] }));
      token.appendChild(svg("text", { x: p.x + dx, y: p.y - 9, "class": "token-label" }, String(seat)));
      token.appendChild(svg("title", {}, seatName(seat) + " at " + p.name));
      map.appendChild(token);
    });
    ui.board.replaceChildren(map);
  }

  // The shortest way along the map's connections from one place to another (the route a
  // trekker took: a move follows connections).
  function route(board, from, to) {
    var next = {}, back = {}, queue = [from];
    board.connections.forEach(function (c) {
      (next[c[0]] = next[c[0]] || []).push(c[1]);
      (next[c[1]] = next[c[1]] || []).push(c[0]);
    });
    back[from] = null;
    while (queue.length) {
      var at = queue.shift();
      if (at === to) break;
      (next[at] || []).forEach(function (n) { if (!(n in back)) { back[n] = at; queue.push(n); } });
    }
    if (!(to in back)) return [from, to];
    var path = [];
    for (var p = to; p !== null; p = back[p]) path.unshift(p);
    return path;
  }

  function describe(at) {
    var total = data.decisions.length, box = document.createDocumentFragment();
    var strikes = data.seats.map(function () { return 0; });
    for (var i = 0; i < at; i++) if (STRIKES[data.decisions[i][4]]) strikes[data.decisions[i][1]]++;
    var head = el("p", "where");
    if (at === 0) head.textContent = "The deal, before the first of " + total + " decisions.";
    else {
      var d = data.decisions[at - 1];
      head.appendChild(el("strong", null, "Decision " + at + " of " + total));
      head.appendChild(document.createTextNode(" \u00b7 turn " + d[0] + " \u00b7 " + seatName(d[1]) + " \u00b7 "));
      head.appendChild(el("code", "action", d[2]));
      head.appendChild(document.createTextNode(" \u00b7 " + Number(d[3]).toFixed(1) + " ms \u00b7 "));
      head.appendChild(el("span", "code " + d[4], d[4]));
    }
    box.appendChild(head);
    var line = el("p", "strike-line", "strikes so far: " + strikes.map(function (n, s) {
      return data.seats[s] + " " + n; }).join(", "));
    box.appendChild(line);
    if (at === total) {
      var o = data.outcome;
      box.appendChild(el("p", "outcome", "Final: " + data.seats.map(function (name, s) {
        return name + " rank " + o.ranks[s] + " (score " + o.scores[s] + (o.forfeited[s] ? ", forfeited" : "") + ")";
      }).join("; ") + (o.capped ? " \u00b7 turn cap reached" : "")));
    }
    ui.decision.replaceChildren(box);
    ui.decision.dataset.pos = at;
  }

  function show(at) {
    if (!data) return;
    pos = Math.max(0, Math.min(frames.length - 1, at));
    describe(pos);
    drawBoard(frames[pos]);
    drawTable(pos);
    drawState(frames[pos]);
    ui.jump.value = pos;
    var current = ui.list.querySelector(".current");
    if (current) { current.classList.remove("current"); current.removeAttribute("aria-current"); }
    if (pos > 0) {
      var item = ui.list.children[pos - 1];
      item.classList.add("current");
      item.setAttribute("aria-current", "step");
      ui.list.scrollTop = item.offsetTop - ui.list.offsetTop - ui.list.clientHeight / 2;
    }
    if (history.replaceState) history.replaceState(null, "", "#d" + pos);
    if (pos === frames.length - 1) pause();
    // The analysis panel (analysis.js) follows the viewer's position.
    root.dispatchEvent(new CustomEvent("replay:show", { detail: { pos: pos, total: data.decisions.length } }));
  }

  function buildList() {
    var out = document.createDocumentFragment();
    data.decisions.forEach(function (d, i) {
      var li = el("li", d[4] === "ok" ? "" : "fault");
      li.id = "d" + (i + 1);
      var button = el("button", "step", data.seats[d[1]] + ": " + d[2] + (d[4] === "ok" ? "" : " [" + d[4] + "]"));
      button.type = "button";
      button.tabIndex = -1;
      button.addEventListener("click", function () { pause(); show(i + 1); });
      li.appendChild(button);
      out.appendChild(li);
    });
    ui.list.replaceChildren(out);
    ui.total.textContent = "of " + data.decisions.length;
    ui.jump.max = data.decisions.length;
  }

  function expand(diffs) {
    var out = [], current = {};
    diffs.forEach(function (diff) {
      var next = Object.assign({}, current, diff[0]);
      (diff[1] || []).forEach(function (key) { delete next[key]; });
      out.push(next);
      current = next;
    });
    return out;
  }

  function load(view) {
    root.setAttribute("aria-busy", "true");
    return fetch(root.getAttribute("data-replay") + "?view=" + encodeURIComponent(view))
      .then(function (response) {
        if (response.ok) return response.json();
        return response.json().then(function (body) { return Promise.reject(body.detail); },
                                    function () { return Promise.reject("HTTP " + response.status); });
      })
      .then(function (got) {
        data = got;
        frames = expand(got.frames);
        tables = got.tables ? expand(got.tables) : [];
        if (!tables.length) ui.raw.open = true;  // a game without its drawing shows its fields
        buildList();
        root.dataset.view = String(got.view);
        root.removeAttribute("aria-busy");
        show(pos);
      })
      .catch(function (why) {
        root.removeAttribute("aria-busy");
        ui.decision.textContent = "The replay could not be loaded: " + why;
      });
  }

  function pause() {
    if (timer) { clearInterval(timer); timer = null; }
    ui.play.textContent = "play";
    ui.play.setAttribute("aria-pressed", "false");
  }
  function play() {
    if (timer) { pause(); return; }
    if (pos >= frames.length - 1) show(0);
    timer = setInterval(function () { show(pos + 1); }, 600);
    ui.play.textContent = "pause";
    ui.play.setAttribute("aria-pressed", "true");
  }

  var actions = {
    first: function () { pause(); show(0); }, last: function () { pause(); show(frames.length - 1); },
    prev: function () { pause(); show(pos - 1); }, next: function () { pause(); show(pos + 1); }, play: play
  };
  root.querySelectorAll("[data-act]").forEach(function (button) {
    button.addEventListener("click", function () { actions[button.getAttribute("data-act")](); });
  });
  ui.jump.addEventListener("change", function () { pause(); show(parseInt(ui.jump.value, 10) || 0); });
  ui.view.addEventListener("change", function () { load(ui.view.value); });
  document.addEventListener("keydown", function (event) {
    var tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey || event.metaKey) return;
    var act = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", " ": "play" }[event.key];
    if (!act) return;
    event.preventDefault();
    actions[act]();
  });

  var start = /^#d(\d+)$/.exec(location.hash);
  if (start) pos = parseInt(start[1], 10);
  load(ui.view.value);
})();
