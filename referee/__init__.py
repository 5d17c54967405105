"""The rules engine: pure Nerts rules, first-touch rulings and scoring. No I/O, no clock, no threads
in the core (``referee.cards``, ``referee.engine``); the event log and CLI sit beside it."""
