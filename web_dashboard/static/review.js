/* Review page: footage around a contested contact, frame stepping on the log's frame-time table,
   slow motion, card outlines and contact times drawn over the video (corrections: corrections.js). */
"use strict";
(function () {
  var SVGNS = "http://www.w3.org/2000/svg";
  var COLOURS = ["#d1495b", "#2e86ab", "#3b9c3b", "#edae49", "#8d6cab", "#00798c"];
  var data, video, canvas, frames, times;

  function who(c) { return c.player || "owner unknown"; }  /* a card seen on a pile, nobody seen playing it */

  function frameAt(t) {
    /* index into `frames` of the frame showing at time t (last frame starting at or before t) */
    var lo = 0, hi = times.length - 1, best = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (times[mid] <= t + 1e-6) { best = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return best;
  }

  function step(direction) {
    video.pause();
    var t = video.currentTime;
    if (!times.length) {  /* no frame table: assume 30 fps */
      video.currentTime = Math.max(0, t + direction / 30);
      return;
    }
    var i = frameAt(t);
    var j = Math.max(0, Math.min(times.length - 1, (i < 0 ? 0 : i + direction)));
    /* land just inside the target frame so the decoder shows it, not its neighbour */
    var next = j + 1 < times.length ? times[j + 1] : times[j] + 0.033;
    video.currentTime = times[j] + Math.min(0.002, (next - times[j]) / 4);
  }

  function drawOverlay() {
    if (!canvas || !video.videoWidth) return;
    if (canvas.width !== video.videoWidth) { canvas.width = video.videoWidth; canvas.height = video.videoHeight; }
    var ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    var t = video.currentTime;
    var scale = canvas.width / 640;
    var px = Math.max(10, Math.round(canvas.width / 45));  /* readable at any video size */
    ctx.font = px + "px system-ui, sans-serif";
    ctx.lineWidth = Math.max(2, 2 * scale);
    data.contenders.forEach(function (c, k) {
      var colour = COLOURS[k % COLOURS.length];
      if (c.outline && c.t !== null && Math.abs(t - c.t) <= 0.75) {
        ctx.strokeStyle = colour;
        ctx.globalAlpha = t >= c.t ? 1 : 0.55;  /* solid once it has touched */
        ctx.beginPath();
        c.outline.forEach(function (p, i) { if (i) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]); });
        ctx.closePath(); ctx.stroke();
        ctx.fillStyle = colour;
        ctx.fillText(who(c) + " " + c.card + (t >= c.t ? " ✓ touched" : ""), c.outline[0][0], c.outline[0][1] - 6);
        ctx.globalAlpha = 1;
      }
    });
    /* the caption: each contender's contact time, the margin and its uncertainty */
    var lines = data.contenders.map(function (c) {
      return who(c) + " " + (c.t === null ? "?" : c.t.toFixed(3) + " s") +
        (c.uncertainty_ms !== null && c.uncertainty_ms !== undefined ? " ± " + Math.round(c.uncertainty_ms) + " ms" : "");
    });
    if (data.ruling.margin_ms !== null && data.ruling.margin_ms !== undefined) {
      lines.push("margin " + Number(data.ruling.margin_ms).toFixed(1) + " ms" + (data.ruling.tie ? " (tie)" : ""));
    }
    var lh = Math.round(px * 1.3);
    ctx.fillStyle = "rgba(0,0,0,.55)";
    ctx.fillRect(0, 0, canvas.width, lh * (lines.length + 0.5));
    ctx.fillStyle = "#fff";
    lines.forEach(function (line, i) { ctx.fillText(line, 8, lh * (i + 1)); });
  }

  function drawTimeline() {
    var svg = document.getElementById("timeline");
    var t0 = data.window[0], t1 = data.window[1], W = 600;
    var x = function (t) { return ((t - t0) / (t1 - t0)) * W; };
    var parts = [];
    function add(tag, attrs, text) {
      var e = document.createElementNS(SVGNS, tag);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      if (text !== undefined) e.textContent = text;
      parts.push(e);
    }
    add("line", { "class": "axis", x1: 0, x2: W, y1: 55, y2: 55 });
    for (var s = Math.ceil(t0); s <= t1; s++) {
      add("line", { "class": "axis", x1: x(s), x2: x(s), y1: 52, y2: 58 });
      add("text", { x: x(s) + 2, y: 68 }, s + " s");
    }
    data.contenders.forEach(function (c, k) {
      if (c.t === null) return;
      var colour = COLOURS[k % COLOURS.length];
      var u = (c.uncertainty_ms || 0) / 1000;
      add("rect", { "class": "band", x: x(c.t - u), y: 8 + k * 14, width: Math.max(1, x(c.t + u) - x(c.t - u)), height: 12, fill: colour });
      add("line", { "class": "mark", x1: x(c.t), x2: x(c.t), y1: 6 + k * 14, y2: 22 + k * 14, stroke: colour });
      add("text", { x: x(c.t) + 4, y: 18 + k * 14 }, who(c));
    });
    (data.markers || []).forEach(function (m) {
      add("line", { "class": "mark", x1: x(m.t), x2: x(m.t), y1: 0, y2: 55, stroke: "#b3261e", "stroke-dasharray": "3 2" });
      add("text", { x: x(m.t) + 3, y: 50 }, m.label);
    });
    if (video) {
      var h = Math.max(0, Math.min(W, x(video.currentTime)));
      add("line", { "class": "head", id: "playhead", x1: h, x2: h, y1: 0, y2: 60 });
    }
    svg.replaceChildren.apply(svg, parts);
  }

  function readouts() {
    var t = video.currentTime;
    document.getElementById("time-readout").textContent = "t = " + t.toFixed(3) + " s";
    var i = frameAt(t);
    document.getElementById("frame-readout").textContent = i >= 0 ? String(frames[i][0]) : "–";
    video.dataset.frame = i >= 0 ? String(frames[i][0]) : "";
    drawOverlay(); drawTimeline();
  }

  function loop() {
    readouts();
    if (!video.paused && !video.ended) requestAnimationFrame(loop);
  }

  function setupVideo() {
    video = document.getElementById("video");
    canvas = document.getElementById("overlay");
    if (!video) { drawTimeline(); return; }
    var play = document.getElementById("play");
    var speed = document.getElementById("speed");
    video.playbackRate = Number(speed.value);
    var opened = false;
    function openAtContact() {  /* once: one second before the contact */
      if (opened) return;
      opened = true;
      video.currentTime = Math.max(0, data.centre - 1.0);
    }
    video.addEventListener("loadedmetadata", openAtContact);
    if (video.readyState >= 1) openAtContact();  /* metadata arrived before this script ran */
    video.addEventListener("play", function () { play.textContent = "Pause"; requestAnimationFrame(loop); });
    video.addEventListener("pause", function () { play.textContent = "Play"; readouts(); });
    video.addEventListener("seeked", readouts);
    video.addEventListener("timeupdate", readouts);
    play.addEventListener("click", function () {
      if (video.paused) { video.playbackRate = Number(speed.value); video.play(); } else { video.pause(); }
    });
    speed.addEventListener("change", function () { video.playbackRate = Number(speed.value); });
    document.getElementById("frame-back").addEventListener("click", function () { step(-1); });
    document.getElementById("frame-fwd").addEventListener("click", function () { step(1); });
    document.getElementById("to-contact").addEventListener("click", function () {
      video.pause(); video.currentTime = data.centre;
    });
    document.getElementById("timeline").addEventListener("click", function (e) {
      var r = this.getBoundingClientRect();
      video.currentTime = data.window[0] + ((e.clientX - r.left) / r.width) * (data.window[1] - data.window[0]);
    });
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if (e.key === "ArrowLeft") { e.preventDefault(); step(-1); }
      else if (e.key === "ArrowRight") { e.preventDefault(); step(1); }
      else if (e.key === " ") { e.preventDefault(); play.click(); }
    });
    drawTimeline();
  }

  document.addEventListener("DOMContentLoaded", function () {
    data = JSON.parse(document.getElementById("review-data").textContent);
    frames = data.frames || [];
    times = frames.map(function (f) { return f[1]; });
    setupVideo();
  });
})();
