"""A finished match's analysis: each seat's chance to win at each of its decisions, judged from what that seat
knew, with its mistakes (service/core/analyses.py keeps it, workers/analysis.py computes it, docs/analysis.md
says how)."""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api import Blueprint, integer, problems, referee

blp = Blueprint("analysis", __name__, url_prefix="/matches",
                description="Analysis: each seat's chances over a finished match, and its mistakes")

LABELS = ("good", "inaccuracy", "mistake", "blunder")
STATUSES = ("queued", "running", "done", "failed")


def chance(description: str) -> fields.Float:
    return fields.Float(required=True, validate=validate.Range(min=0, max=1), metadata={"description": description})


def expected_rank(description: str) -> fields.Float:
    return fields.Float(required=True, validate=validate.Range(min=1), metadata={"description": description})


class ThresholdsSchema(Schema):
    inaccuracy = chance("A loss of chance to win from this on is an inaccuracy.")
    mistake = chance("From this on, a mistake.")
    blunder = chance("From this on, a blunder.")


class AlternativeSchema(Schema):
    move = fields.Dict(required=True, allow_none=True, metadata={
        "description": "A legal move of the decision, as the game writes it; null where it is the move played and the "
                       "analysis was made compact to stay within the record's size (the record has it)."})
    win = chance("The seat's estimated chance to win with this move.")
    rank = expected_rank("The seat's expected rank with this move (1: first).")


class DecisionSchema(Schema):
    index = integer(required=True, metadata={"description": "The move's index in the record's `moves`."})
    version = integer(required=True, metadata={"description": "The move's version, as in the record."})
    seat = integer(required=True)
    win = chance("The seat's estimated chance to win with the move it played, judged from what it knew then.")
    rank = expected_rank("The seat's expected rank with the move it played.")
    best = fields.List(fields.Nested(AlternativeSchema), required=True, validate=validate.Length(max=3),
                       metadata={"description": "The best few legal moves, best first (the move played first when "
                                                "none beats it; fewer, or none, where the analysis was made compact)."})
    loss = chance("The chance to win given away: the best move's less the played move's (0 at best).")
    label = fields.String(required=True, metadata={"enum": list(LABELS)})


class LabelCountsSchema(Schema):
    good = integer(required=True)
    inaccuracy = integer(required=True)
    mistake = integer(required=True)
    blunder = integer(required=True)


class SeatSummarySchema(Schema):
    seat = integer(required=True)
    decisions = integer(required=True, metadata={"description": "The seat's decisions judged (forced moves are "
                                                                "not)."})
    average_loss = chance("The seat's mean loss over its decisions.")
    labels = fields.Nested(LabelCountsSchema, required=True)
    decisive = fields.List(integer(), required=True, validate=validate.Length(max=3), metadata={
        "description": "The seat's largest losses from a mistake on, largest first: indices into `decisions`."})


class AnalysisSchema(Schema):
    format = integer(required=True, metadata={"description": "The analysis's format (1)."})
    game = fields.String(required=True)
    players = integer(required=True)
    budget = fields.String(required=True, metadata={"description": "The search budget of each decision "
                                                                   "(REFEREE_ANALYSIS_BUDGET)."})
    thresholds = fields.Nested(ThresholdsSchema, required=True)
    decisions = fields.List(fields.Nested(DecisionSchema), required=True, metadata={
        "description": "Every decision that had a choice (more than one legal move), in the order played."})
    summary = fields.List(fields.Nested(SeatSummarySchema), required=True, metadata={"description": "One per seat."})


class AnalysisStateSchema(Schema):
    status = fields.String(required=True, metadata={"enum": list(STATUSES), "description":
                           "queued (a search worker takes it after the search bots' turns), running, done or "
                           "failed (ask again to run it again)."})
    done = integer(required=True, metadata={"description": "Decisions judged so far."})
    total = integer(required=True, metadata={"description": "Decisions to judge (0 until the analysis runs)."})
    analysis = fields.Nested(AnalysisSchema, metadata={"description": "Once done."})


@blp.route("/<string:match_id>/analysis")
class Analysis(MethodView):
    @blp.response(202, AnalysisStateSchema, description="Asked for: queued or running.")
    @blp.alt_response(200, schema=AnalysisStateSchema, description="Done already: the analysis.")
    @problems(blp, "unknown_match", "match_not_over", "store_full", "redis_unavailable")
    def post(self, match_id: str):
        """Ask for a finished match's analysis (anyone may): each seat's chance to win at each of its decisions,
        judged only from what that seat knew, its mistakes, and a summary per seat.

        A search worker runs it at the server's budget, after the search bots' turns; follow it with GET.
        Asking again returns the same analysis (one that failed runs again). Before the match is finished it
        is refused (409 `match_not_over`), as it would tell what the seats hold."""
        state, _ = referee().ask_analysis(match_id)
        return state, 200 if state["status"] == "done" else 202

    @blp.response(200, AnalysisStateSchema)
    @problems(blp, "unknown_match", "no_analysis", "redis_unavailable")
    def get(self, match_id: str):
        """The analysis's progress (queued, running with the decisions done, done, failed) and, once done, the
        analysis itself; it is kept as long as the match and exported with its record."""
        return referee().analysis(match_id)
