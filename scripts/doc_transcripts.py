"""Run the commands of the tutorials and paste what they print (docs/tutorials/*.md from *.md.in).

A template is Markdown. In a ```console block made only of `$ command` lines (and `> ` lines that
continue a command), each command is run and its output (stdout and stderr together, as a terminal
shows them) is pasted under it, with `[exit N]` when it fails; a block with any other line is left as
written. `<!-- run: command -->` runs a command that is not shown (waiting for a server, stopping it).
All commands of one page run in order in one bash, in a fresh home folder, so a page's state (its
database, files, variables, background jobs) carries from one command to the next. The outputs show that
home as `~` and this checkout's `src/` as an installed package's `.../site-packages/`, not this machine's paths.

    python scripts/doc_transcripts.py docs/tutorials/play.md.in [...]   # writes docs/tutorials/play.md
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
"""The repository's root, as `$REPO` to the commands (a page's hidden `cd $REPO` runs examples/ from there)."""
FENCE = re.compile(r"^```console\n(.*?)^```\n", re.M | re.S)
HIDDEN = re.compile(r"^<!-- run: (.*?) -->\n", re.M)


def _block_commands(body: str) -> list[str] | None:
    """The commands of a console block made only of `$ ` lines and their `> ` continuations, else None."""
    lines = body.splitlines()
    if not lines or not lines[0].startswith("$ ") or not all(line.startswith(("$ ", "> ")) for line in lines):
        return None
    found: list[str] = []
    for line in lines:
        if line.startswith("$ "):
            found.append(line[2:])
        else:
            found[-1] += "\n" + line[2:]
    return found


def commands(template: str) -> list[tuple[str, bool]]:
    """Every command of the template in page order, each with whether it is shown."""
    found: list[tuple[int, str, bool]] = []
    for m in FENCE.finditer(template):
        found += [(m.start(), cmd, True) for cmd in _block_commands(m.group(1)) or []]
    found += [(m.start(), m.group(1), False) for m in HIDDEN.finditer(template)]
    return [(cmd, shown) for _, cmd, shown in sorted(found, key=lambda f: f[0])]


def run(cmds: list[tuple[str, bool]], bin_dir: Path) -> list[str]:
    """Run the commands in one bash in a fresh home; the output of each."""
    mark = f"@@{uuid.uuid4().hex}@@"
    with tempfile.TemporaryDirectory(prefix="keypeg-docs-") as home:
        path = f"{bin_dir}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        script = [f"export HOME={home} PATH={path} REPO={REPO} KEYPEG_PLAYER=ann COLUMNS=100", f"cd {home}"]
        for cmd, _ in cmds:
            script += [f"echo {mark}", f"{{ {cmd}\n}} 2>&1", 'rc=$?; [ $rc -ne 0 ] && echo "[exit $rc]"']
        done = subprocess.run(
            ["bash", "-c", "\n".join(script)], capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        printed = done.stdout.replace(home, "~").replace(f"{REPO}/src/", ".../site-packages/")
    outputs = [out if out.endswith("\n") or not out else out + "\n" for out in printed.split(mark + "\n")[1:]]
    if len(outputs) != len(cmds):
        sys.exit(f"error: {len(cmds)} commands, {len(outputs)} outputs: {done.stderr.strip()}")
    return outputs


def render(template: str, bin_dir: Path) -> str:
    """The page: the template with every shown command's output pasted under it."""
    cmds = commands(template)
    outputs = iter(run(cmds, bin_dir))
    by_command = [(cmd, next(outputs), shown) for cmd, shown in cmds]
    shown_outputs = iter([(cmd, out) for cmd, out, shown in by_command if shown])

    def block(m: re.Match[str]) -> str:
        cmds = _block_commands(m.group(1))
        if cmds is None:
            return m.group(0)
        body = ""
        for _ in cmds:
            cmd, out = next(shown_outputs)
            body += "$ " + cmd.replace("\n", "\n> ") + "\n" + out
        return f"```console\n{body}```\n"

    return HIDDEN.sub("", FENCE.sub(block, template))


def skeleton(text: str) -> str:
    """A page or its template without the outputs and hidden commands: what must be the same in both."""

    def commands_only(m: re.Match[str]) -> str:
        kept = [line for line in m.group(1).splitlines() if line.startswith(("$ ", "> "))]
        return "```console\n" + "".join(line + "\n" for line in kept) + "```\n"

    return FENCE.sub(commands_only, HIDDEN.sub("", text))


def main() -> None:
    bin_dir = Path(sys.executable).parent
    for name in sys.argv[1:]:
        source = Path(name)
        target = source.with_suffix("")  # play.md.in -> play.md
        target.write_text(render(source.read_text(), bin_dir))
        print(f"{target}: written")


if __name__ == "__main__":
    main()
