"""The Python sessions README.md shows (``pycon`` blocks) run as doctests: what the front page says of the
library is what it does."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
SESSION = re.compile(r"^```pycon\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def test_readme_python_sessions_run_as_shown() -> None:
    sessions = SESSION.findall(README.read_text(encoding="utf-8"))
    assert len(sessions) >= 2, "README.md's Python sessions went missing"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, text in enumerate(sessions, 1):
        test = parser.get_doctest(text, {}, f"README.md session {number}", str(README), 0)
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted >= 10
    assert results.failed == 0, f"{results.failed} README example(s) print otherwise (see above)"
