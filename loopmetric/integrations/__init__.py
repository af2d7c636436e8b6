"""Scorers for the evaluation frameworks teams already use, each a thin adapter over `detect_loops`.

Each module needs its framework, an optional extra, and is imported only when asked for.
"""
