"use strict";
// loopmetric report: the table of every trace and the detail of one, drawn from the JSON blocks of this page.
// Everything from a trace is put on the page with textContent (never innerHTML): it is shown, never run.
(function () {
  var SVG = "http://www.w3.org/2000/svg";
  var ROWS = JSON.parse(document.getElementById("rows").textContent);
  var META = JSON.parse(document.getElementById("meta").textContent);
  var PAGE = 100;
  var details = {};  // chunk number -> parsed details, parsed on first use
  var state = { key: 1, dir: 1, verdict: "", pattern: "", query: "", page: 0 };
  var view = [];  // indexes of ROWS shown, in order

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var name in attrs || {}) { node.setAttribute(name, attrs[name]); }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    for (var name in attrs || {}) { node.setAttribute(name, attrs[name]); }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function fmt(n) { return n === null || n === undefined ? "" : Number(n).toLocaleString("en-US", { maximumFractionDigits: 2 }); }
  function money(n) { return "$" + (Math.abs(n) < 1 ? n.toFixed(4) : n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })); }
  function stepRange(steps) {
    if (!steps.length) { return ""; }
    return steps.length === 1 ? "step " + steps[0] : "steps " + steps[0] + "-" + steps[steps.length - 1];
  }
  function stepList(steps) { return steps.length > 12 ? steps.slice(0, 10).join(", ") + ", ... " + steps[steps.length - 1] : steps.join(", "); }

  // ---- the table ----------------------------------------------------------------------------------------
  var VERDICT_ORDER = { fail: 0, unread: 1, pass: 2 };
  function compare(a, b) {
    var ra = ROWS[a], rb = ROWS[b], k = state.key, va = ra[k], vb = rb[k];
    if (k === 2) { va = VERDICT_ORDER[va]; vb = VERDICT_ORDER[vb]; }
    if (va === null && vb !== null) { return 1; }  // unread rows last whichever way
    if (vb === null && va !== null) { return -1; }
    var c = 0;
    if (typeof va === "string") { c = va.localeCompare(vb); } else if (va !== vb) { c = va < vb ? -1 : 1; }
    if (c === 0 && k !== 0) { c = ra[0].localeCompare(rb[0]); return c; }
    return c * state.dir;
  }
  function refresh() {
    var q = state.query.toLowerCase();
    view = [];
    for (var i = 0; i < ROWS.length; i++) {
      var r = ROWS[i];
      if (state.verdict && r[2] !== state.verdict) { continue; }
      if (state.pattern === "-" && r[3].length) { continue; }
      if (state.pattern && state.pattern !== "-" && r[3].indexOf(state.pattern) < 0) { continue; }
      if (q && r[0].toLowerCase().indexOf(q) < 0) { continue; }
      view.push(i);
    }
    view.sort(compare);
    var pages = Math.max(1, Math.ceil(view.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    draw(pages);
  }
  function draw(pages) {
    var body = document.getElementById("trace-rows");
    var rows = document.createDocumentFragment();
    var start = state.page * PAGE;
    view.slice(start, start + PAGE).forEach(function (i) {
      var r = ROWS[i];
      var tr = el("tr", { "data-index": i, "data-verdict": r[2] });
      var name = el("td");
      name.appendChild(el("a", { href: "#trace-" + i }, r[0]));
      tr.appendChild(name);
      tr.appendChild(el("td", { "class": "num" }, r[1] === null ? "-" : r[1].toFixed(2)));
      tr.appendChild(el("td", { "class": "verdict " + r[2] }, r[2] === "unread" ? "not read" : r[2]));
      tr.appendChild(el("td", { "class": r[2] === "unread" ? "why" : "" }, r[4] || "-"));
      tr.appendChild(el("td", { "class": "num" }, fmt(r[5])));
      tr.appendChild(el("td", { "class": "num" }, fmt(r[6])));
      rows.appendChild(tr);
    });
    body.replaceChildren(rows);
    document.getElementById("shown").textContent = view.length.toLocaleString("en-US") + " of " +
      ROWS.length.toLocaleString("en-US") + " traces";
    document.getElementById("page").textContent = view.length ? "rows " + (start + 1).toLocaleString("en-US") + "-" +
      Math.min(start + PAGE, view.length).toLocaleString("en-US") + " (page " + (state.page + 1) + " of " + pages + ")" : "no trace matches";
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
    document.querySelectorAll("#trace-table th").forEach(function (th) {
      var key = Number(th.getAttribute("data-key"));
      th.setAttribute("aria-sort", key === state.key ? (state.dir > 0 ? "ascending" : "descending") : "none");
    });
  }
  var typing = null;
  document.getElementById("filters").addEventListener("submit", function (e) { e.preventDefault(); });
  document.getElementById("search").addEventListener("input", function (e) {
    clearTimeout(typing);
    typing = setTimeout(function () { state.query = e.target.value; state.page = 0; refresh(); }, 120);
  });
  document.getElementById("verdict").addEventListener("change", function (e) { state.verdict = e.target.value; state.page = 0; refresh(); });
  document.getElementById("pattern").addEventListener("change", function (e) { state.pattern = e.target.value; state.page = 0; refresh(); });
  document.getElementById("prev").addEventListener("click", function () { state.page -= 1; refresh(); });
  document.getElementById("next").addEventListener("click", function () { state.page += 1; refresh(); });
  document.querySelectorAll("#trace-table th button").forEach(function (button) {
    button.addEventListener("click", function () {
      var key = Number(button.parentNode.getAttribute("data-key"));
      state.dir = key === state.key ? -state.dir : 1;
      state.key = key;
      refresh();
    });
  });

  // ---- the detail of one trace ---------------------------------------------------------------------------
  function detailOf(i) {
    // A promise of the detail of trace i: its block is parsed (and unpacked when gzipped) on first use.
    var chunk = Math.floor(i / META.chunk);
    if (!details[chunk]) {
      var node = document.getElementById("d" + chunk);
      if (node.type !== "application/gzip+base64") {
        details[chunk] = Promise.resolve(JSON.parse(node.textContent));
      } else if (typeof DecompressionStream === "undefined") {
        return Promise.reject(new Error("This report is large, so its details are compressed; this browser cannot " +
          "unpack them (it needs DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 or later)."));
      } else {
        var bytes = Uint8Array.from(atob(node.textContent), function (c) { return c.charCodeAt(0); });
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
        details[chunk] = new Response(stream).text().then(JSON.parse);
      }
    }
    return details[chunk].then(function (block) { return block[i - chunk * META.chunk]; });
  }
  function colour(k) { return META.palette[k]; }

  function timeline(d) {
    // The picture plot_timeline draws: a row per step, bars coloured by call, loops outlined, a column per finding.
    var rowH = 18, unit = 96, left = 64, cols = d.columns.length;
    var top = cols ? 22 : 6;
    var width = left + unit * (6.3 + 0.55 * cols + (cols ? 0.6 : 0));
    var height = top + rowH * Math.max(d.rows.length, 1) + 6;
    var root = svg("svg", { "class": "timeline", width: Math.round(width), height: height,
      viewBox: "0 0 " + Math.round(width) + " " + height, role: "img", "aria-label": "timeline of the trace" });
    function y(row) { return top + rowH * row + rowH / 2; }
    d.columns.forEach(function (c) {  // light band behind each finding's steps
      var rows = c[1];
      root.appendChild(svg("rect", { x: left, y: y(rows[0]) - rowH * 0.45, width: width - left,
        height: y(rows[rows.length - 1]) - y(rows[0]) + rowH * 0.9, fill: colour(c[0]), "fill-opacity": 0.07 }));
    });
    d.rows.forEach(function (r, i) {
      var tool = r[1] === 1;
      root.appendChild(svg("text", { x: left - 6, y: y(i) + 4, "text-anchor": "end", "class": "step" }, "step " + r[0]));
      var bar = svg("rect", { x: left, y: y(i) - rowH * 0.35, width: unit * (tool ? 1 : 0.35), height: rowH * 0.7,
        fill: colour(r[2]) });
      if (r[3]) { bar.setAttribute("stroke", "black"); bar.setAttribute("stroke-width", "1.2"); }
      root.appendChild(bar);
      root.appendChild(svg("text", { x: left + unit * (tool ? 1.05 : 0.4), y: y(i) + 4, "class": "label" }, r[4]));
    });
    d.columns.forEach(function (c, k) {
      var rows = c[1], x = left + unit * (6.3 + 0.55 * k), fill = colour(c[0]);
      root.appendChild(svg("line", { x1: x, x2: x, y1: y(rows[0]), y2: y(rows[rows.length - 1]), stroke: fill,
        "stroke-width": 2, "stroke-linecap": "round" }));
      rows.forEach(function (row) { root.appendChild(svg("circle", { cx: x, cy: y(row), r: 3.2, fill: fill })); });
      root.appendChild(svg("text", { x: x, y: y(rows[0]) - rowH * 0.6, "text-anchor": "middle", fill: fill,
        "font-size": 11 }, "#" + (k + 1)));
    });
    return root;
  }

  function keys(d) {
    var box = el("div", { "class": "keys" });
    d.keys.forEach(function (k) {
      var item = el("span");
      var swatch = el("span", { "class": "key-swatch" });
      if (k[0] === "bar") { swatch.style.background = colour(k[1]); }
      else if (k[0] === "outline") { swatch.style.border = "1.5px solid " + colour(k[1]); }
      else { swatch.style.borderTop = "3px solid " + colour(k[1]); swatch.style.height = "0"; swatch.style.verticalAlign = "3px"; }
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(k[2]));
      box.appendChild(item);
    });
    return box;
  }

  function findingCard(f, k) {
    var card = el("article", { "class": "finding-card" });
    card.style.borderLeftColor = META.patterns[f.pattern] || "#d62728";
    var head = el("h3", {}, "#" + (k + 1) + " " + f.pattern + " ");
    head.appendChild(el("span", { "class": "sev" }, f.severity));
    card.appendChild(head);
    if (f.meaning) { card.appendChild(el("p", { "class": "meaning" }, f.meaning + ".")); }
    card.appendChild(el("p", { "class": "message" }, f.message));
    var facts = el("dl");
    function fact(name, value) { facts.appendChild(el("dt", {}, name)); facts.appendChild(el("dd", {}, value)); }
    fact("repeated", f.count + " times");
    fact("steps", stepList(f.steps) + (f.steps.length > 1 ? " (" + stepRange(f.steps) + ")" : ""));
    if (f.tools.length) { fact("tools", f.tools.join(", ")); }
    if (f.similarity !== null) { fact("similarity", f.similarity.toFixed(2)); }
    if (f.tokens !== null) { fact("tokens", fmt(f.tokens)); }
    if (f.cost !== null) { fact("cost", money(f.cost)); }
    card.appendChild(facts);
    card.appendChild(el("h4", {}, "What repeated"));
    var list = el("ul", { "class": "content" });
    f.content.forEach(function (c) {
      var item = el("li");
      item.appendChild(el("span", { "class": "at" }, (c[1].length > 1 ? c[1].length + " times, steps " : "step ") + stepList(c[1])));
      item.appendChild(el("pre", { "class": "repeated" }, c[0]));
      list.appendChild(item);
    });
    card.appendChild(list);
    return card;
  }

  var shown = 0;  // the latest trace asked for: an earlier one still unpacking is not drawn over it
  function showDetail(i) {
    var ticket = ++shown;
    detailOf(i).then(function (d) { if (ticket === shown) { drawDetail(i, d); } }, function (error) {
      if (ticket === shown) { drawDetail(i, { failure: error.message }); }
    });
  }
  function drawDetail(i, d) {
    var r = ROWS[i];
    var box = document.getElementById("detail-view");
    var parts = document.createDocumentFragment();
    parts.appendChild(el("a", { href: "#traces", "class": "back", id: "back" }, "\u2190 all traces"));
    var head = el("div", { "class": "detail-head" });
    head.appendChild(el("h2", { id: "detail-name" }, r[0]));
    if (d.failure) {
      parts.appendChild(head);
      parts.appendChild(el("div", { "class": "reason", id: "detail-reason" }, d.failure));
    } else if (d.error) {
      head.appendChild(el("p", { "class": "verdict unread", id: "detail-verdict" }, "could not be read (never counted as a pass)"));
      parts.appendChild(head);
      parts.appendChild(el("div", { "class": "reason", id: "detail-reason" }, d.error));
    } else {
      head.appendChild(el("p", { "class": "verdict " + r[2], id: "detail-verdict" }, d.verdict + " \u00b7 " + fmt(r[5]) +
        " steps drawn \u00b7 " + fmt(r[6]) + " inside loops"));
      parts.appendChild(head);
      parts.appendChild(el("div", { "class": "reason " + r[2], id: "detail-reason" }, d.reason));
      parts.appendChild(el("h3", {}, "Timeline"));
      var wrap = el("div", { "class": "timeline-wrap" });
      wrap.appendChild(el("p", { "class": "timeline-title" }, r[0] + ": " + d.verdict));
      if (d.task) { wrap.appendChild(el("p", { "class": "timeline-task", id: "detail-task" }, "task: " + d.task)); }
      wrap.appendChild(el("p", { "class": "timeline-legend" }, d.legend));
      wrap.appendChild(timeline(d));
      wrap.appendChild(keys(d));
      parts.appendChild(wrap);
      parts.appendChild(el("h3", {}, d.findings.length ? "Findings (" + d.findings.length + ")" : "Findings"));
      if (!d.findings.length) { parts.appendChild(el("p", { "class": "empty" }, "No loops found.")); }
      d.findings.forEach(function (f, k) { parts.appendChild(findingCard(f, k)); });
      var breakdown = Object.keys(d.breakdown).map(function (k) { return k + " " + d.breakdown[k].toFixed(2); });
      parts.appendChild(el("p", { "class": "note" }, "Score by signal: " + breakdown.join(", ")));
      if (d.notes.length) {
        parts.appendChild(el("h3", {}, "Notes"));
        var notes = el("ul");
        d.notes.forEach(function (n) { notes.appendChild(el("li", {}, n)); });
        parts.appendChild(notes);
      }
    }
    parts.appendChild(el("h3", {}, "Settings used"));
    parts.appendChild(document.getElementById("settings-table").cloneNode(true)).removeAttribute("id");
    box.replaceChildren(parts);
    document.getElementById("summary-view").hidden = true;
    box.hidden = false;
    document.title = r[0] + " \u00b7 " + document.querySelector("header.top h1").textContent;
    window.scrollTo(0, 0);
  }

  var baseTitle = document.title;
  function route() {
    var hash = decodeURIComponent(location.hash.slice(1));
    var m = /^trace-(\d+)$/.exec(hash);
    if (m && Number(m[1]) < ROWS.length) { showDetail(Number(m[1])); return; }
    shown += 1;  // a detail still unpacking is no longer wanted
    document.getElementById("detail-view").hidden = true;
    document.getElementById("summary-view").hidden = false;
    document.title = baseTitle;
    var p = /^pattern=(.+)$/.exec(hash);
    if (p) {
      state.pattern = p[1]; state.page = 0;
      document.getElementById("pattern").value = p[1];
      refresh();
      document.getElementById("traces").scrollIntoView();
    } else if (hash) {
      var target = document.getElementById(hash);
      if (target) { target.scrollIntoView(); }
    }
  }
  window.addEventListener("hashchange", route);
  refresh();
  route();
})();
