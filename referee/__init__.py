"""The rules engine: pure Nerts rules, first-touch rulings and scoring. No I/O, no clock, no threads
in the core (``referee.cards``, ``referee.observations``, ``referee.nerts``, ``referee.engine``); the
event log (``referee.eventlog``) and the ``replay`` command (``referee.cli``) sit beside it.

- ``referee.cards``: ``Card`` identity (``"10H"``, ``"QS"``).
- ``referee.settings``: ``TableSettings`` (players, backs, every rule of RULES.md), TOML/JSON.
- ``referee.observations``: the input events of Contract 1, parsed and validated.
- ``referee.nerts``: Nerts' own rules (legality, first touch, ties, scoring, end of game).
- ``referee.engine``: ``Engine``, ``replay(events) -> GameResult`` (event-sourced bookkeeping).
- ``referee.eventlog``: ``EventLog``, the append-only SQLite log (Contract 3).
- ``referee.data``: scripted rounds shipped with the package (``demo_round.jsonl``).
"""
