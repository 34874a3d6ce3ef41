"""The referee: the one object the API, the workers and the clients hold, composed of its parts.

Every change to a match is one compare-and-set on its version (``Store.write``): a move, whether a player's
over HTTP or one the referee plays for a seat (bot, clock, away), in ``apply_move`` (service/core/play.py);
joins, scoring, aborts and the rest through ``Store.commit``, the same loop around a ``decide``.  Each commit
carries the jobs the match then owes (service/core/jobs.py).

The parts, each a module of service/core/ over ``RefereeBase`` (base.py, the state they share):

- seating.py: create, join, away and back, abort, rematch;
- play.py: the move's path and the scoring; clocks.py: timeouts and forfeits; turns.py: a turn's rules and timers;
- views.py: views, legal moves, event pages and streams, photos, results, the listing; records.py: records, replays;
- analyses.py: a finished match's analysis, asked for, run by a search worker, kept with its record;
- jobs.py: what a commit owes and its queues; capacity.py: the store's room and compaction; hooks.py: webhooks.

They are mixins rather than collaborators because they share one state and the same few look-ups, and the
callers hold one ``Referee`` with all their methods and queues: mixins keep that surface, and the move's hot
path, without a layer of forwarding methods.
"""

from __future__ import annotations

from service.core.analyses import Analyses
from service.core.play import Play
from service.core.seating import Seating
from service.core.views import Views


class Referee(Seating, Play, Views, Analyses):
    """The referee of every match in one store: what the API, the workers and the clients call."""
