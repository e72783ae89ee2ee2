"""Single-dummy play: a deal's values as one seat can know them, over the deals it cannot tell
apart (docs/advice.md): each sampled deal valued, the advice on a lead or a choice, the price of
information, Hoyle's maxims, and what the play so far tells a seat of the others' hands."""
