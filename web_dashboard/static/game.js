/* Game page: follows the log over the Server-Sent Events feed (/api/stream) and, whenever it
   changes, swaps in the freshly rendered page content (/game/body): rounds, chart and statistics
   are rendered by the server exactly as on a reload. One fetch at a time; changes that arrive
   during a fetch are picked up by one more fetch right after it. */
"use strict";
(function () {
  var host, status, wanted = 0, loading = false;

  function load() {
    if (loading || Number(host.dataset.seq) >= wanted) return;
    loading = true;
    var target = wanted;
    fetch(host.dataset.url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.text();
      })
      .then(function (html) {
        /* the server's own template, escaped by Jinja; the page's CSP runs no inline script */
        var doc = new DOMParser().parseFromString(html, "text/html");
        host.replaceChildren.apply(host, Array.prototype.slice.call(doc.body.childNodes));
        host.dataset.seq = String(target);
        document.body.dataset.seq = String(target);
      })
      .catch(function (err) { status.textContent = "update failed (" + err.message + "), retrying…"; })
      .finally(function () {
        loading = false;
        if (Number(host.dataset.seq) < wanted) setTimeout(load, 250);
      });
  }

  function onChange(e) {
    var data = JSON.parse(e.data);
    wanted = Math.max(wanted, Number(data.board.seq) || 0);
    if (e.type === "reset" && Number(data.board.seq) !== Number(host.dataset.seq)) {
      host.dataset.seq = "-1";  /* the log was replaced: fetch whatever it holds now */
    }
    load();
  }

  function connect() {
    var source = new EventSource("/api/stream?after=" + encodeURIComponent(host.dataset.seq));
    source.addEventListener("open", function () { status.textContent = "live"; });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED) {
        status.textContent = "server busy, retrying…";
        setTimeout(connect, 10000);
      } else {
        status.textContent = "reconnecting…";
      }
    });
    source.addEventListener("reset", onChange);
    source.addEventListener("update", onChange);
    window.addEventListener("pagehide", function () { source.close(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    host = document.getElementById("game-body");
    status = document.getElementById("feed-status");
    if (host) { wanted = Number(host.dataset.seq) || 0; connect(); }
  });
})();
