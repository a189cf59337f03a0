"""Fair-play signals (issue 10) — placeholder until the task lands."""
