"""The Game page: rounds and totals, the score-progression chart, per-player statistics."""

from __future__ import annotations

from flask import Blueprint, make_response, render_template

from web_dashboard import charts, summary
from web_dashboard.app import dash

bp = Blueprint("game", __name__)


def game_view(snap) -> dict:
    board = snap.board
    names = [p["name"] for p in board["players"]]
    colours = {p["name"]: charts.colour_for(p.get("back"), i) for i, p in enumerate(board["players"])}
    series = summary.progression(snap.state, names)
    goal = board["target"]
    chart = charts.score_chart(series, names, colours,
                               target=goal["value"] if goal["end_condition"] == "target_score" else None)
    rounds = summary.round_scores(snap.state)
    return {"board": board, "names": names, "colours": colours, "chart": chart, "rounds": rounds,
            "series": series, "stats": summary.player_stats(snap.state, list(snap.events)),
            "error": snap.error}


@bp.get("/game")
def page():
    return render_template("game.html", **game_view(dash().store.snapshot()))


@bp.get("/game/body")
def body():
    """The page's content alone: the Game page fetches it when the SSE feed says the log changed."""
    response = make_response(render_template("_game_body.html", **game_view(dash().store.snapshot())))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/game")
def data():
    view = game_view(dash().store.snapshot())
    view.pop("chart")
    return view
