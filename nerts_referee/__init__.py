"""nerts-referee: the command-line shell that joins vision, referee, simulator and dashboard."""

__version__ = "0.1.0"
