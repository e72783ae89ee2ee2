"""Tests of the logic package: proofs, their guards and their certificates."""
