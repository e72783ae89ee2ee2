"""Analyses built on the model and the solver: the state graph and the published cases."""
