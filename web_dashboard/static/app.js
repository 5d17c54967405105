/* Shared helpers: CSRF-carrying JSON posts and a status line. */
"use strict";
window.Nerts = (function () {
  function csrf() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.content : "";
  }
  function flash(text, bad) {
    var el = document.getElementById("flash");
    if (!el) return;
    el.textContent = text;
    el.className = bad ? "flash bad" : "flash";
    el.hidden = false;
    clearTimeout(flash.timer);
    flash.timer = setTimeout(function () { el.hidden = true; }, bad ? 8000 : 3000);
  }
  /* POST a JSON body; resolves to the parsed reply, rejects with the server's error message. */
  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(), "Accept": "application/json" },
      body: JSON.stringify(body || {})
    }).then(function (r) {
      return r.json().catch(function () { return { error: "HTTP " + r.status }; }).then(function (data) {
        if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
        return data;
      });
    });
  }
  return { csrf: csrf, flash: flash, post: post };
})();
