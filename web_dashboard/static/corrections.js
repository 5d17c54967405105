/* Admin corrections on the Review pages: every form.correction posts its fields as one JSON
   correction (action from the pressed button or the form's hidden field, a required reason);
   the server appends it to the log, the engine re-derives the game, and the page reloads. */
"use strict";
(function () {
  function fields(form, submitter) {
    var body = {};
    new FormData(form).forEach(function (value, key) { body[key] = typeof value === "string" ? value.trim() : value; });
    if (submitter && submitter.name === "action") body.action = submitter.value;
    if (body.count !== undefined && /^\d+$/.test(body.count)) body.count = Number(body.count);
    return body;
  }

  function setup(form) {
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var body = fields(form, e.submitter);
      if (!body.reason) { Nerts.flash("a reason is required for every correction", true); return; }
      var buttons = form.querySelectorAll("button");
      buttons.forEach(function (b) { b.disabled = true; });
      Nerts.post(form.dataset.url, body)
        .then(function (r) {
          Nerts.flash(body.action.replace("_", " ") + " recorded (#" + r.seq + "); the game is re-scored");
          document.body.dataset.corrected = String(r.seq);
          setTimeout(function () { location.reload(); }, 700);
        })
        .catch(function (err) {
          Nerts.flash(err.message, true);
          buttons.forEach(function (b) { b.disabled = false; });
        });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form.correction").forEach(setup);
  });
})();
