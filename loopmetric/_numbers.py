"""Numbers written one way wherever loopmetric prints them: "1 trace", "1,627 steps", "$0.0021"."""

from __future__ import annotations

__all__ = ["count", "money", "number", "rates"]


def number(value: float) -> str:
    """Thousands separated; whole values without decimals (660.0 -> "660")."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def count(value: float, noun: str, plural: str = "") -> str:
    """"1 trace", "2 traces", "1,627 steps"; `plural` for nouns that do not just take an s."""
    return f"{number(value)} {noun if value == 1 else plural or noun + 's'}"


def money(value: float) -> str:
    """Dollars: four decimals under a dollar, where agent costs live ("$0.0021"), else two ("$1,234.50")."""
    return f"${value:,.4f}" if abs(value) < 1 else f"${value:,.2f}"


def rates(first: float, second: float) -> tuple[str, str]:
    """Two rates to two decimals, or to as many more (up to six) as it takes to tell them apart."""
    for places in range(2, 7):
        pair = f"{first:.{places}f}", f"{second:.{places}f}"
        if pair[0] != pair[1]:
            break
    return pair
