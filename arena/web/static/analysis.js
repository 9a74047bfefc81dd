// The analysis panel of the match viewer: for the chosen seat, the kept analysis from
// GET /api/v1/matches/ID/analysis?seat=S, or a button that asks for one (POST to the same
// path, forwarded to the Arena service) and waits for it. Drawn beside the viewer's step:
// a curve of each seat's expected result at the analysed seat's decisions, and, for the
// decision on show, a bar per action valued (its 95 % interval as a whisker).
"use strict";
(function () {
  var viewer = document.getElementById("viewer"), root = document.getElementById("analysis");
  if (!viewer || !root) return;

  var COLOURS = ["#1d4e89", "#c0392b", "#27813e", "#8e44ad", "#d35400", "#16a085"];
  var SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  var PLURALS = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
  var POLL_MS = 2000, POLL_LIMIT = 300;
  var SVG = "http://www.w3.org/2000/svg";
  var ui = {
    seat: document.getElementById("analysis-seat"), ask: document.getElementById("analyse"),
    status: document.getElementById("analysis-status"), summary: document.getElementById("analysis-summary"),
    curve: document.getElementById("analysis-curve"), bars: document.getElementById("analysis-bars")
  };
  var url = root.getAttribute("data-analysis"), shown = null, at = 0, total = 0, asking = 0;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function percent(value) { return (100 * value).toFixed(1) + " %"; }
  function address(seat) { return url + "?seat=" + encodeURIComponent(seat); }

  function answer(response) {
    return response.json().then(function (body) {
      if (response.ok) return body;
      return Promise.reject(typeof body.detail === "string" ? body.detail : "HTTP " + response.status);
    }, function () { return Promise.reject("HTTP " + response.status); });
  }

  function clear() {
    shown = null;
    ui.summary.textContent = "";
    ui.curve.replaceChildren();
    ui.bars.replaceChildren();
    markList(null);
    root.removeAttribute("data-ready");
  }

  function read(seat) {
    clear();
    ui.ask.hidden = true;
    return fetch(address(seat)).then(answer).then(function (body) {
      if (String(seat) !== ui.seat.value) return;
      if (body.analysis) { ui.status.textContent = ""; draw(body.analysis); return; }
      if (asking) return;
      ui.ask.hidden = false;
      ui.status.textContent = "not analysed yet";
    }).catch(function (why) { ui.status.textContent = "The analysis could not be read: " + why; });
  }

  function ask() {
    var seat = ui.seat.value, polls = 0;
    ui.ask.hidden = true;
    ui.status.textContent = "asking…";
    asking += 1;
    fetch(address(seat), { method: "POST" }).then(answer).then(function (body) {
      if (body.status === "done") { asking -= 1; ui.status.textContent = ""; draw(body.analysis); return; }
      if (body.status === "failed") {  // told once: the button asks again
        asking -= 1;
        ui.ask.hidden = false;
        ui.status.textContent = "The last analysis failed: " + body.reason + ". Ask again to compute it again.";
        return;
      }
      ui.status.textContent = "being computed…";
      var wait = function () {
        polls += 1;
        fetch(address(seat)).then(answer).then(function (got) {
          if (got.analysis) {
            asking -= 1;
            if (ui.seat.value === seat) { ui.status.textContent = ""; draw(got.analysis); }
          } else if (polls < POLL_LIMIT) setTimeout(wait, POLL_MS);
          else { asking -= 1; ui.ask.hidden = false; ui.status.textContent = "still being computed: come back later"; }
        }).catch(function (why) { asking -= 1; ui.status.textContent = "The analysis could not be read: " + why; });
      };
      setTimeout(wait, POLL_MS);
    }).catch(function (why) {
      asking -= 1;
      ui.ask.hidden = false;
      ui.status.textContent = "Refused: " + why;
    });
  }

  function draw(analysis) {
    shown = analysis;
    var s = analysis.summary, marks = Object.keys(s.marks).map(function (name) {
      return s.marks[name] + " " + (s.marks[name] === 1 ? name : PLURALS[name]);
    });
    ui.summary.textContent = "Seat " + analysis.seat + " (" + analysis.scale + "): " + s.decisions +
      " decisions judged, average loss " + s.average_loss.toFixed(1) + " points, accuracy " +
      s.accuracy.toFixed(1) + " · " + marks.join(", ") + (analysis.truncated ? " · cut short" : "");
    drawCurve(analysis);
    markList(analysis);
    drawBars();
    root.dataset.ready = "true";
  }

  // Each seat's expected result after each of the analysed seat's decisions, over the match.
  function drawCurve(analysis) {
    var W = 600, H = 160, pad = 24, decisions = analysis.decisions;
    var span = Math.max(1, total || (decisions.length ? decisions[decisions.length - 1].index + 1 : 1));
    var x = function (i) { return pad + (W - 2 * pad) * i / span; };
    var y = function (v) { return H - pad - (H - 2 * pad) * v; };
    var chart = svg("svg", { viewBox: "0 0 " + W + " " + H, "class": "curve", role: "img",
                             "aria-label": "each seat's expected result over the match" });
    [0, 0.5, 1].forEach(function (v) {
      chart.appendChild(svg("line", { x1: pad, x2: W - pad, y1: y(v), y2: y(v), "class": "grid" }));
      chart.appendChild(svg("text", { x: 2, y: y(v) + 4, "class": "axis" }, String(v)));
    });
    for (var seat = 0; seat < analysis.num_players; seat++) {
      var points = decisions.map(function (d) { return x(d.index + 1) + "," + y(d.expected[seat]); });
      points.push(x(span) + "," + y(analysis.final[seat]));
      var line = svg("polyline", { points: points.join(" "), "class": "seat-curve", "data-seat": seat,
                                   stroke: COLOURS[seat % COLOURS.length] });
      line.appendChild(svg("title", {}, "seat " + seat));
      chart.appendChild(line);
    }
    decisions.forEach(function (d) {
      if (!d.mark) return;
      var dot = svg("circle", { cx: x(d.index + 1), cy: y(d.expected[analysis.seat]), r: 4,
                                "class": "mark " + d.mark, "data-index": d.index });
      dot.appendChild(svg("title", {}, "decision " + (d.index + 1) + ": " + d.mark + ", " + d.loss.toFixed(1) + " points"));
      chart.appendChild(dot);
    });
    chart.appendChild(svg("line", { x1: x(at), x2: x(at), y1: pad / 2, y2: H - pad / 2, "class": "now" }));
    ui.curve.replaceChildren(chart);
  }

  // The viewer's list of decisions carries the marks (as Lichess writes them: ?!, ?, ??).
  function markList(analysis) {
    document.querySelectorAll("#decisions li[data-mark]").forEach(function (li) {
      li.removeAttribute("data-mark");
      var sign = li.querySelector(".mark-sign");
      if (sign) sign.remove();
    });
    if (!analysis) return;
    analysis.decisions.forEach(function (d) {
      var li = document.getElementById("d" + (d.index + 1));
      if (!li || !d.mark) return;
      li.dataset.mark = d.mark;
      var sign = el("span", "mark-sign " + d.mark, " " + SIGNS[d.mark]);
      sign.title = d.mark + ": " + d.loss.toFixed(1) + " ± " + d.loss_half.toFixed(1) + " points";
      li.appendChild(sign);
    });
  }

  // The decision on show (the one the viewer's header describes: decision ``at``).
  function drawBars() {
    if (!shown) return;
    var now = ui.curve.querySelector("line.now");
    if (now) {
      var span = Math.max(1, total), W = 600, pad = 24, px = pad + (W - 2 * pad) * at / span;
      now.setAttribute("x1", px); now.setAttribute("x2", px);
    }
    var d = null;
    shown.decisions.forEach(function (item) { if (item.index === at - 1) d = item; });
    if (!d) {
      ui.bars.replaceChildren(el("p", "meta", at === 0 ? "Step to one of seat " + shown.seat + "'s decisions."
        : "Decision " + at + " is not judged (another seat's, or a single legal action)."));
      delete ui.bars.dataset.index;
      return;
    }
    var box = document.createDocumentFragment();
    var head = el("p", "judged");
    head.appendChild(el("strong", null, "Decision " + at + ": "));
    head.appendChild(el("code", null, d.chosen));
    head.appendChild(document.createTextNode(d.chosen === d.best ? " was the best action found"
      : " lost " + d.loss.toFixed(1) + " ± " + d.loss_half.toFixed(1) + " points against "));
    if (d.chosen !== d.best) head.appendChild(el("code", null, d.best));
    if (d.mark) head.appendChild(el("span", "mark-sign " + d.mark, " " + d.mark + " " + SIGNS[d.mark]));
    box.appendChild(head);
    var rows = d.actions.slice().sort(function (a, b) { return b.value - a.value || (a.action < b.action ? -1 : 1); });
    var list = el("ol", "bars");
    rows.forEach(function (row) {
      var item = el("li", "bar-row" + (row.action === d.chosen ? " chosen" : "") + (row.action === d.best ? " best" : ""));
      item.dataset.action = row.action;
      item.appendChild(el("code", "bar-action", row.action));
      var track = el("span", "bar-track");
      var bar = el("span", "bar");
      bar.style.width = Math.max(0, Math.min(100, 100 * row.value)) + "%";
      var whisker = el("span", "whisker");
      whisker.style.left = Math.max(0, 100 * row.low) + "%";
      whisker.style.width = Math.max(0, Math.min(100, 100 * row.high) - Math.max(0, 100 * row.low)) + "%";
      track.appendChild(bar);
      track.appendChild(whisker);
      item.appendChild(track);
      item.appendChild(el("span", "bar-value", percent(row.value)));
      item.title = row.action + ": " + percent(row.value) + " (95 % interval " + percent(row.low) + " to " + percent(row.high) + ")";
      list.appendChild(item);
    });
    box.appendChild(list);
    ui.bars.replaceChildren(box);
    ui.bars.dataset.index = String(d.index);
  }

  viewer.addEventListener("replay:show", function (event) {
    at = event.detail.pos;
    var first = !total;
    total = event.detail.total;
    if (first && shown) drawCurve(shown);
    if (shown && !document.querySelector("#decisions li[data-mark]")) markList(shown);  // the list was rebuilt
    drawBars();
  });
  ui.seat.addEventListener("change", function () { read(ui.seat.value); });
  ui.ask.addEventListener("click", ask);
  read(ui.seat.value);
})();
