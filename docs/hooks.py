"""MkDocs hooks: keypeg's docstrings, written for ``help()`` and doctest, read as Markdown in the API reference.

The docstrings use Sphinx roles (``:class:`~keypeg.errors.InvalidCodeError```) and doctest blocks
(``>>>`` lines) in their text, which Markdown would show as stray colons and as quotes or links. A
Markdown preprocessor, registered for every page and so for the docstrings mkdocstrings renders, turns a
role into a cross-reference to the object when the reference documents it (plain code otherwise, never a
broken link), and a doctest block into a fenced ``pycon`` block. Links to files outside docs/ (right on
GitHub) are rewritten so that ``mkdocs build --strict`` accepts them.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|const|obj|exc|mod):`(~?)([\w.]+?)(\(\))?`")
FENCE = re.compile(r"^\s*(```|~~~)")
PROMPT = re.compile(r"^(\s*)>>> ")
LITERAL = re.compile(r"^(\s*)((?:[-*+]|\d+\.)\s+)?(.*?)::$")  # a paragraph ending in "::" opens a literal block


def _role(match: re.Match[str]) -> str:
    short, target, call = match.group(1), match.group(2), match.group(3) or ""
    shown = target.rsplit(".", 1)[-1] if short else target
    identifier = target if target.split(".", 1)[0] == "keypeg" else f"{_namespace(target)}.{target}"
    return f'<autoref identifier="{identifier}" optional><code>{shown}{call}</code></autoref>'


def _literal(block: list[str], indent: str) -> list[str]:
    """A reST literal block (the indented lines after "::") as a fenced Python block at ``indent``."""
    first = next((i for i, line in enumerate(block) if line.strip()), len(block))
    last = max((i for i, line in enumerate(block) if line.strip()), default=-1)
    code = block[first : last + 1]
    if not code:
        return block
    cut = min(len(line) - len(line.lstrip()) for line in code if line.strip())
    body = [f"{indent}{line[cut:]}" if line.strip() else "" for line in code]
    return ["", f"{indent}```python", *body, f"{indent}```", *block[last + 1 :]]


@functools.cache
def _public() -> dict[str, str]:
    """Each public name of keypeg.envs and keypeg, with the namespace the reference documents it in."""
    import keypeg

    names = dict.fromkeys(keypeg.__all__, "keypeg")
    try:
        import keypeg.envs
    except ImportError:  # installed without its extra: its page fails on its own
        return names
    return {**dict.fromkeys(keypeg.envs.__all__, "keypeg.envs"), **names}


def _namespace(target: str) -> str:
    """Where a bare name (History, History.add, evaluate) is documented: keypeg, or keypeg.envs for its own."""
    return _public().get(target.split(".", 1)[0], "keypeg")


class DocstringText(Preprocessor):
    """Sphinx roles as cross-references, doctest and literal blocks as fenced code; fenced blocks left alone."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fence: str | None = None
        doctest: str | None = None  # the indentation of the doctest block being read
        literal: str | None = None  # the indentation of the literal block announced by "::"
        block: list[str] = []
        for line in [*lines, ""]:
            if literal is not None:
                if not line.strip() or len(line) - len(line.lstrip()) > len(literal):
                    block.append(line)
                    continue
                out += _literal(block, literal)
                literal, block = None, []
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
            if m := LITERAL.match(line):
                indent, marker, text = m.group(1), m.group(2) or "", m.group(3)
                literal = indent + " " * len(marker)
                line = f"{indent}{marker}{text}:" if text.strip() else ""
            out.append(ROLE.sub(_role, line))
        return out[:-1]


class DocstringExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(DocstringText(md), "keypeg_docstrings", 28)


def on_config(config: Any) -> Any:
    config.markdown_extensions.append(DocstringExtension())
    # pymdownx.snippets reads its base paths from the working folder: from mkdocs.yml's, wherever mkdocs runs.
    snippets = config.mdx_configs.get("pymdownx.snippets", {})
    root = Path(config.config_file_path).resolve().parent
    snippets["base_path"] = [str(root / path) for path in snippets.get("base_path", ["."])]
    return config


OUTSIDE = re.compile(r"\[([^\]]+)\]\((\.\./[^)#\s]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Links from a page to files outside docs/ (``../README.md``, ``../../benchmarks/x.py``), right on GitHub,
    go to the repository's copy when ``repo_url`` is set, else become the link's text and the file's path."""
    docs = Path(config.docs_dir).resolve()
    root = docs.parent
    here = (docs / page.file.src_path).parent

    def rewrite(m: re.Match[str]) -> str:
        target = (here / m.group(2)).resolve()
        if target.is_relative_to(docs) or not target.is_relative_to(root):
            return m.group(0)
        path = target.relative_to(root).as_posix()
        if config.repo_url:
            return f"[{m.group(1)}]({config.repo_url.rstrip('/')}/blob/main/{path}{m.group(3) or ''})"
        return m.group(1) if m.group(1).strip("`") == path else f"{m.group(1)} (`{path}`)"

    return OUTSIDE.sub(rewrite, markdown)
