"""The rules model: cards, rulesets, deals, play, settlement and stops. Pure, no I/O."""
