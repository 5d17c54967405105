"""The table simulator: bots play real Nerts rounds and an overhead camera films the table.

``simulator.api.simulate(SimulationConfig(...))`` is the entry point (``nerts-referee simulate``
on the command line); ``simulator.game`` holds the bots and rules, ``simulator.render`` the camera,
``simulator.deck_art`` the card artwork. See ``docs/simulator.md``.
"""
