/* Setup page: gather the players table and rule fields, post them as one settings change. */
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var form = document.getElementById("settings");
  if (!form) return;
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var players = [];
    form.querySelectorAll("#players tbody tr").forEach(function (tr) {
      var get = function (n) { return tr.querySelector('input[name="' + n + '"]').value.trim(); };
      if (!get("name")) return;
      var p = { name: get("name"), back: get("back"), team: get("team") || null };
      if (get("seat") !== "") p.seat = Number(get("seat"));
      players.push(p);
    });
    var rules = {};
    form.querySelectorAll("[name^='rule.']").forEach(function (i) {
      var v = i.value;
      rules[i.name.slice(5)] = i.type === "number" ? Number(v) : v;
    });
    Nerts.post("/api/settings", { players: players, rules: rules })
      .then(function () { Nerts.flash("settings saved"); setTimeout(function () { location.reload(); }, 600); })
      .catch(function (err) { Nerts.flash(err.message, true); });
  });
});
