"""MkDocs hooks: keypeg's docstrings, written for ``help()`` and doctest, read as Markdown in the API reference.

The docstrings use Sphinx roles (``:class:`~keypeg.errors.InvalidCodeError```) and doctest blocks
(``>>>`` lines) in their text, which Markdown would show as stray colons and as quotes or links. A
Markdown preprocessor, registered for every page and so for the docstrings mkdocstrings renders, turns a
role into a cross-reference to the object when the reference documents it (plain code otherwise, never a
broken link), and a doctest block into a fenced ``pycon`` block.
"""

from __future__ import annotations

import re
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|const|obj|exc|mod):`(~?)([\w.]+?)(\(\))?`")
FENCE = re.compile(r"^\s*(```|~~~)")
PROMPT = re.compile(r"^(\s*)>>> ")


def _role(match: re.Match[str]) -> str:
    short, target, call = match.group(1), match.group(2), match.group(3) or ""
    shown = target.rsplit(".", 1)[-1] if short else target
    # A bare name is one of keypeg's public names (History, check): the reference documents them under keypeg.
    identifier = target if "." in target and target.split(".", 1)[0] == "keypeg" else f"keypeg.{target}"
    return f'<autoref identifier="{identifier}" optional><code>{shown}{call}</code></autoref>'


class DocstringText(Preprocessor):
    """Sphinx roles as cross-references, doctest blocks as fenced code; fenced blocks left alone."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fence: str | None = None
        doctest: str | None = None  # the indentation of the doctest block being read
        for line in lines:
            if doctest is not None:
                if line.strip():
                    out.append(line[len(doctest) :] if line.startswith(doctest) else line.strip())
                    continue
                out.append(f"{doctest}```")
                doctest = None
            if fence is not None:
                out.append(line)
                if FENCE.match(line) and line.strip().startswith(fence):
                    fence = None
                continue
            if m := FENCE.match(line):
                fence = m.group(1)
                out.append(line)
                continue
            if m := PROMPT.match(line):
                doctest = m.group(1)
                if out and out[-1].strip():
                    out.append("")
                out += [f"{doctest}```pycon", line[len(doctest) :]]
                continue
            out.append(ROLE.sub(_role, line))
        if doctest is not None:
            out.append(f"{doctest}```")
        return out


class DocstringExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(DocstringText(md), "keypeg_docstrings", 28)


def on_config(config: Any) -> Any:
    config.markdown_extensions.append(DocstringExtension())
    return config
