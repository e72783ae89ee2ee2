"""Collection rules for the whole tree: the OpenSpiel adapter's modules and the ismcts bot are
collected (for doctests) only when the ``openspiel`` extra is installed;
tests/spiel/test_openspiel.py skips with the reason otherwise."""

import importlib.util

collect_ignore_glob = ([] if importlib.util.find_spec("pyspiel")
                       else ["popejoan_solver/spiel/*", "popejoan_solver/bots/ismcts.py"])
