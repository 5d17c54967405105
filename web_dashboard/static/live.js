/* Live page: scoreboard + feed over Server-Sent Events, the Nerts button and round controls. */
"use strict";
(function () {
  var SVGNS = "http://www.w3.org/2000/svg";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function renderBoard(board) {
    document.getElementById("round-number").textContent = board.round;
    document.getElementById("round-state").textContent =
      board.round_active && board.nerts_by ? "Nerts! by " + board.nerts_by + ": enter the cards left" :
      board.round_active ? "in play" :
      board.game_over ? "game over: " + board.winners.join(" and ") + (board.winners.length > 1 ? " share the win" : " wins") :
      board.round ? "finished" : "not started";
    document.getElementById("target-label").textContent = board.target.label;
    var body = document.getElementById("score-rows");
    var rows = document.createDocumentFragment();
    board.players.forEach(function (p) {
      var tr = el("tr");
      tr.dataset.player = p.name;
      var name = el("td");
      var svg = document.createElementNS(SVGNS, "svg");
      svg.setAttribute("class", "swatch"); svg.setAttribute("width", "12"); svg.setAttribute("height", "12");
      var c = document.createElementNS(SVGNS, "circle");
      c.setAttribute("cx", "6"); c.setAttribute("cy", "6"); c.setAttribute("r", "6"); c.setAttribute("fill", p.colour);
      svg.appendChild(c);
      name.appendChild(svg);
      name.appendChild(document.createTextNode(p.name));
      if (p.team) { name.appendChild(document.createTextNode(" ")); name.appendChild(el("small", "muted", "(" + p.team + ")")); }
      tr.appendChild(name);
      tr.appendChild(el("td", "num", String(p.last_round)));
      tr.appendChild(el("td", "num total", String(p.total)));
      rows.appendChild(tr);
      var pr = el("tr", "progress-row");
      pr.dataset.player = p.name;
      var td = el("td"); td.colSpan = 3;
      var bar = el("progress"); bar.max = 1; bar.value = p.progress;
      bar.setAttribute("aria-label", p.name + ": progress to the target");
      td.appendChild(bar); pr.appendChild(td); rows.appendChild(pr);
    });
    body.replaceChildren(rows);
  }

  function feedItem(line, fresh) {
    var li = el("li", line.css + (fresh ? " fresh" : ""));
    li.dataset.seq = line.seq;
    li.appendChild(el("span", "t", line.t === null ? "" : line.t.toFixed(2) + " s"));
    li.appendChild(document.createTextNode(" " + line.text));
    return li;
  }

  function renderFeed(lines, reset) {
    var feed = document.getElementById("feed");
    if (reset) feed.replaceChildren();
    lines.forEach(function (line) {
      if (feed.querySelector('li[data-seq="' + line.seq + '"]')) return;
      feed.insertBefore(feedItem(line, !reset), feed.firstChild);
    });
    while (feed.children.length > 200) feed.removeChild(feed.lastChild);
  }

  function connect() {
    var status = document.getElementById("feed-status");
    var source = new EventSource("/api/stream");
    source.addEventListener("open", function () { status.textContent = "live"; });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED) {  /* refused (e.g. server full): try again later */
        status.textContent = "server busy, retrying…";
        setTimeout(connect, 10000);
      } else {
        status.textContent = "reconnecting…";
      }
    });
    source.addEventListener("reset", function (e) {
      var data = JSON.parse(e.data);
      renderBoard(data.board); renderFeed(data.feed, true);
      document.body.dataset.seq = data.board.seq;
    });
    source.addEventListener("update", function (e) {
      var data = JSON.parse(e.data);
      renderBoard(data.board); renderFeed(data.feed, false);
      document.body.dataset.seq = data.board.seq;
    });
    window.addEventListener("pagehide", function () { source.close(); });
  }

  /* --- admin controls --- */
  var lastPress = null;

  function callNerts(pressedAt) {
    var who = document.getElementById("nerts-player");
    if (!who || !who.value) { Nerts.flash("pick who called Nerts", true); return; }
    var btn = document.getElementById("nerts-button");
    btn.classList.add("pressed");
    var ago = Math.max(0, Math.min(5000, performance.now() - pressedAt));
    Nerts.post("/api/nerts", { player: who.value, pressed_ms_ago: ago })
      .then(function (r) { Nerts.flash("Nerts! recorded for " + who.value + " (#" + r.seq + ")"); renderBoard(r.board); })
      .catch(function (err) { Nerts.flash(err.message, true); })
      .finally(function () { btn.classList.remove("pressed"); });
  }

  function setupControls() {
    var btn = document.getElementById("nerts-button");
    if (!btn) return;
    btn.addEventListener("pointerdown", function () { lastPress = performance.now(); });
    btn.addEventListener("click", function () {
      var at = lastPress !== null ? lastPress : performance.now();
      lastPress = null;
      callNerts(at);
    });
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      /* typing a count or a reason must not call Nerts; on the caller picker the keys still work */
      if (tag === "INPUT" || tag === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "n" || e.key === "N") { e.preventDefault(); callNerts(performance.now()); }
      var digit = parseInt(e.key, 10);
      var select = document.getElementById("nerts-player");
      if (digit >= 1 && digit <= select.options.length) { e.preventDefault(); select.selectedIndex = digit - 1; }
    });
    [["round-start", "/api/round/start", "round started"], ["round-stuck", "/api/round/stuck", "everyone stuck recorded"]]
      .forEach(function (spec) {
        var b = document.getElementById(spec[0]);
        b.addEventListener("click", function () {
          var at = performance.now();
          b.disabled = true;
          Nerts.post(spec[1], { pressed_ms_ago: performance.now() - at })
            .then(function (r) { Nerts.flash(spec[2]); renderBoard(r.board); })
            .catch(function (err) { Nerts.flash(err.message, true); })
            .finally(function () { b.disabled = false; });
        });
      });
    var form = document.getElementById("end-round");
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var left = {};
      form.querySelectorAll("input[data-player]").forEach(function (i) {
        left[i.dataset.player] = i.value === "" ? null : Number(i.value);
      });
      Nerts.post("/api/round/end", { nerts_left: left })
        .then(function (r) { Nerts.flash("round ended"); renderBoard(r.board); form.reset(); })
        .catch(function (err) { Nerts.flash(err.message, true); });
    });
  }

  function setupCamera() {
    var img = document.getElementById("camera");
    var none = document.getElementById("no-camera");
    img.addEventListener("load", function () { none.hidden = true; });
    img.addEventListener("error", function () {  /* stream refused or ended: reconnect later */
      setTimeout(function () { img.src = img.dataset.src + "?retry=" + Date.now(); }, 10000);
    });
    /* start the endless MJPEG stream after the page has loaded, so it never holds up "load" */
    window.addEventListener("load", function () { img.src = img.dataset.src; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setupCamera(); setupControls(); connect();
  });
})();
