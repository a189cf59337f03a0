"""Tables, games, seats and real-time play. The rules engine lives in ``games.engine``."""
