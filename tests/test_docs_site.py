"""The documentation site: `mkdocs build --strict` passes, and the pages hold what they promise.

The build (a few seconds) runs once for the module, into a temporary folder.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ["play", "analyse", "research", "host", "bots"]


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
        cwd=out,  # not the repository's root: the benchmark results are found from mkdocs.yml's folder
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WARNING" not in done.stderr, done.stderr[-3000:]
    return out


def _page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text() if name else (site / "index.html").read_text()


@pytest.mark.slow
def test_every_page_is_built(site: Path) -> None:
    assert "Where to start" in _page(site, "")
    for name in TUTORIALS:
        text = re.sub(r"<[^>]+>", "", _page(site, f"tutorials/{name}"))
        assert "$ keypeg" in text or "$ python" in text, name
    for name in ["ARCHITECTURE", "SCALING", "feedback-variants", "openings", "optimal-survey", "startup"]:
        assert (site / name / "index.html").exists(), name
    assert not list(site.rglob("*.md.in")) and not (site / "hooks.py").exists()  # sources stay out of the site


@pytest.mark.slow
def test_api_reference_has_the_public_names(site: Path) -> None:
    import keypeg
    import keypeg.envs

    reference, envs = _page(site, "reference"), _page(site, "reference/envs")
    for name in keypeg.__all__:
        assert f'id="keypeg.{name}"' in reference, name
    for name in keypeg.envs.__all__:
        assert f'id="keypeg.envs.{name}"' in envs, name
    # Docstrings are read as Markdown: Sphinx roles become links or code, doctests code blocks.
    assert ":class:`" not in reference and ":func:`" not in reference
    assert 'class="autorefs autorefs-internal"' in reference
    assert "&gt;&gt;&gt;" in reference and "<blockquote>" not in reference


@pytest.mark.slow
def test_every_benchmark_result_is_included(site: Path) -> None:
    for result in sorted((ROOT / "benchmarks" / "results").glob("*.md")):
        page = site / "benchmarks" / result.stem / "index.html"
        assert page.exists(), f"{result.name} has no page: add docs/benchmarks/{result.name} and its nav entry"
        title = result.read_text().splitlines()[0].lstrip("# ").strip()
        text = re.sub(r"<[^>]+>", "", page.read_text())
        assert title.split()[0] in text and "--8<--" not in text, result.name


def test_tutorials_are_their_templates_run() -> None:
    """Each tutorial page is its template with the outputs pasted: the prose is edited in the .md.in."""
    transcripts = _module(ROOT / "scripts" / "doc_transcripts.py")
    for name in TUTORIALS:
        template = (ROOT / "docs" / "tutorials" / f"{name}.md.in").read_text()
        page = (ROOT / "docs" / "tutorials" / f"{name}.md").read_text()
        assert transcripts.skeleton(page) == transcripts.skeleton(template), name


def test_transcripts_show_no_paths_of_the_machine_they_ran_on() -> None:
    """The home a page ran in is shown as ``~``, this checkout's ``src/`` as an installed package's."""
    transcripts = _module(ROOT / "scripts" / "doc_transcripts.py")
    [out] = transcripts.run([("echo $HOME/.cache $REPO/src/keypeg/data", True)], Path(sys.executable).parent)
    assert out == "~/.cache .../site-packages/keypeg/data\n"
    for name in TUTORIALS:
        page = (ROOT / "docs" / "tutorials" / f"{name}.md").read_text()
        assert str(ROOT) not in page and "keypeg-docs-" not in page, name


def test_docstring_text_reads_as_markdown() -> None:
    hooks = _module(ROOT / "docs" / "hooks.py")
    text = """See :class:`~keypeg.errors.InvalidCodeError` and :func:`fitting`::

    import keypeg

>>> 1 + 1
2
"""
    out = "\n".join(hooks.DocstringText(None).run(text.splitlines()))
    assert '<autoref identifier="keypeg.errors.InvalidCodeError" optional><code>InvalidCodeError</code>' in out
    assert '<autoref identifier="keypeg.fitting" optional><code>fitting</code></autoref>:\n' in out
    assert "```python\nimport keypeg\n```" in out
    assert "```pycon\n>>> 1 + 1\n2\n```" in out


def test_links_out_of_docs_are_rewritten() -> None:
    """A page's link to a file outside docs/ (right on GitHub) goes to the repository's copy, or says the path."""
    hooks = _module(ROOT / "docs" / "hooks.py")
    page = SimpleNamespace(file=SimpleNamespace(src_path="tutorials/play.md"))
    text = "[the survey](../../benchmarks/results/survey.md#cells), [play](../index.md), [web](https://x.org/a)"
    config = SimpleNamespace(docs_dir=str(ROOT / "docs"), repo_url=None)
    assert hooks.on_page_markdown(text, page, config, None) == (
        "the survey (`benchmarks/results/survey.md`), [play](../index.md), [web](https://x.org/a)"
    )
    config.repo_url = "https://github.com/o/keypeg/"
    assert hooks.on_page_markdown(text, page, config, None).startswith(
        "[the survey](https://github.com/o/keypeg/blob/main/benchmarks/results/survey.md#cells), [play]"
    )
