"""Framework integrations of BoardZoo: ``boardzoo.integrations.rllib`` (Ray RLlib, the ``rllib`` extra).

Each integration lives in its own subpackage and imports its framework only there, so
``import boardzoo.integrations`` costs nothing and needs no optional dependency.
"""
