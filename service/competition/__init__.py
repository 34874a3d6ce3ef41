"""Play beyond one match: bot accounts that hold an event stream and are challenged and seated (``bots``),
tournaments of accounts and built-in bots, round robin or Swiss (``tournaments``), and the per-game ratings of the
rated matches (``ladder``).

Built on the core (it creates matches and reads them through the ``Referee``); the API and the workers import it.
"""
