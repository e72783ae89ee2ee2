"""Proofs and deal search: SAT/SMT encodings of the rules, the theorem catalogue, ``find``."""
