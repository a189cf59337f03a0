"""Game models (Table, Seat, Game, GameEvent) will live here; see DESIGN.md."""
