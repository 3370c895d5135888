"""The event store in DuckDB, the fold of events into states, branches and projections."""
