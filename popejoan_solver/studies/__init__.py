"""Studies over the game: statistics of batch and match files, standings, the reports in
docs/studies, and the published worked examples checked against the model (cases)."""
