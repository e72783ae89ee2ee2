"""Single-dummy advice: what a seat should do, and what the play so far tells it."""
