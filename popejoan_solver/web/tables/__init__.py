"""Tables where people play together: sessions, their store, per-seat views and the hub."""
