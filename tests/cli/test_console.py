"""Unit tests of `cli._console`'s plain stand-ins for rich (the core install has no rich)."""

from __future__ import annotations

import pytest

from loopmetric.cli._console import _NoProgress, _plain, _PlainConsole, _PlainTable


@pytest.mark.parametrize("text, plain", [
    pytest.param("[red]FAIL[/]", "FAIL", id="markup-dropped"),
    pytest.param("[bold red]x[/bold red] y", "x y", id="styles-dropped"),
    pytest.param("list[0] and [A]", "list[0] and [A]", id="brackets-that-are-not-markup-kept"),
    pytest.param(3, "3", id="not-text"),
])
def test_plain(text, plain):
    assert _plain(text) == plain


def test_a_plain_table_prints_aligned_columns(capsys):
    table = _PlainTable()
    table.add_column("trace")
    table.add_column("score")
    table.add_row("a.json", "[green]1.00[/]")
    table.add_row("longer-name.json", "0.25")
    console = _PlainConsole()
    console.print(table)
    console.print("[bold]done[/]")
    console.print("[kept]", markup=False)
    console.rule("Summary")
    console.rule()
    assert capsys.readouterr().out.splitlines() == [
        "trace             score", "a.json            1.00", "longer-name.json  0.25", "done", "[kept]",
        "== Summary ==", "=" * 40]


def test_a_plain_console_on_stderr_and_no_progress(capsys):
    _PlainConsole(stderr=True).print("oops")
    with _NoProgress() as progress:
        progress.advance(progress.add_task("x"))
    assert capsys.readouterr() == ("", "oops\n")
    assert _PlainConsole.is_terminal is False
