"""The referee itself: load a match, authorise the seat, apply the game's rules, commit with one compare-and-set,
and answer with what that seat may see.

``referee`` is the one object the API and the workers hold; ``store`` the match's Redis hash and event stream with
their scripts; ``outbox`` what a commit owes (bot turns, scoring, deadlines, webhooks) written with it; ``clock``
the turn clocks; ``record`` records and their replay; ``compaction`` what a finished match keeps; ``gauges`` what
the store says at a metrics scrape.

It may import ``integrations``, ``infra`` and the games; never the API, the serving layer or the workers.
"""
