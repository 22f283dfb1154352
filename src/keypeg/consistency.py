"""Is there a secret that fits these scores? Counting, proving none, and finding the likely mistake.

Stuckman and Zhang (2005) showed the question NP-complete. Rule sets small enough to
enumerate are answered by the kernels; larger ones by a constraint solver (OR-Tools
CP-SAT): one Boolean per peg and colour, the black pegs of each guess as a sum, and
black plus white as the sum over colours of the smaller of the two colour counts.
:func:`check` chooses.

When no code fits, the fewest scores to change so that one does are found (the
"likely mistake"), with a corrected score for each and a code that fits the
corrected history.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from keypeg.code import Code, Feedback
from keypeg.feedback import score
from keypeg.limits import DEFAULT_COUNT_LIMIT, ENUMERATE_LIMIT, PLAIN_SCORING_PAIRS, SUSPECT_SEARCH_LIMIT
from keypeg.rules import Rules

__all__ = ["Consistency", "Suspect", "check"]


History = Sequence[tuple[Code, Feedback]]


@dataclass(frozen=True)
class Suspect:
    """A score that is likely wrong, with the score that would make the history fit."""

    number: int
    """1-based number of the scored guess."""
    guess: Code
    given: Feedback
    correction: Feedback
    example: Code
    """A code that fits the history with this score corrected."""
    restores: int = 0
    """How many codes fit once this score is left out (counted up to the check's limit): the more, the
    likelier the mistake; suspects are listed likeliest first."""
    restores_is_lower_bound: bool = False


@dataclass(frozen=True)
class Consistency:
    """The answer about a history of scored guesses."""

    consistent: bool
    count: int
    """Fitting codes (a lower bound when ``count_is_lower_bound``)."""
    count_is_lower_bound: bool
    example: Code | None
    """A fitting code (of the corrected history, when inconsistent)."""
    suspects: list[Suspect] = field(default_factory=list)
    """When inconsistent: the scores most likely wrong (a smallest set to change)."""
    changes: int = 0
    """How many scores must change at the least (0 when consistent)."""
    method: str = "enumeration"
    codes: list[Code] = field(default_factory=list)
    """Fitting codes in order (up to the limit asked for)."""

    def message(self) -> str:
        """One line: whether any code fits, and if none does, which score is the likely mistake."""
        if self.consistent:
            count = f"at least {self.count:,}" if self.count_is_lower_bound else f"{self.count:,}"
            return f"consistent: {count} fitting code{'s' if self.count != 1 else ''} (e.g. {self.example})"
        text = "no code fits these scores: at least one of them is wrong"
        if self.suspects:
            if self.changes == 1:
                first, *others = self.suspects
                hints = (
                    f"guess {first.number} ({first.guess}) scored {first.given}: as {first.correction} it would fit "
                    f"(secret {first.example}{_restoring(first)})"
                )
                if others:
                    hints += "; else " + "; or ".join(
                        f"guess {s.number} ({s.guess}) as {s.correction} (secret {s.example}{_restoring(s)})"
                        for s in others
                    )
            else:
                hints = f"{self.changes} scores must change: " + ", ".join(
                    f"guess {s.number} ({s.guess}) {s.given} -> {s.correction}" for s in self.suspects
                )
                hints += f" (secret {self.example})"
            text += f". Likely mistake: {hints}"
        elif self.changes > 1:
            text += f"; at least {self.changes} of them would have to change, too many ways to name the likely ones"
        return text

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready answer (``suspects`` likeliest first)."""
        return {
            "consistent": self.consistent,
            "count": self.count,
            "count_is_lower_bound": self.count_is_lower_bound,
            "example": str(self.example) if self.example is not None else None,
            "suspects": [s.number for s in self.suspects],
            "correction": {
                str(s.number): {"black": s.correction.black, "white": s.correction.white} for s in self.suspects
            },
            "changes": self.changes,
            "method": self.method,
        }


def check(
    rules: Rules,
    history: History,
    *,
    limit: int = DEFAULT_COUNT_LIMIT,
    method: str | None = None,
    search_limit: int = SUSPECT_SEARCH_LIMIT,
) -> Consistency:
    """Whether some secret fits ``history``; how many (counted up to ``limit`` by the solver); the first
    ``limit`` fitting codes; and if none fits, the likely mistakes. ``method`` forces ``enumeration``
    or ``cp-sat``. By enumeration, the likely mistakes are looked for by leaving sets of scores out in
    turn, up to ``search_limit`` sets (then none is named)."""
    history = [(rules.adopt(guess), rules.check_feedback(feedback)) for guess, feedback in history]
    chosen = method or ("enumeration" if rules.size <= ENUMERATE_LIMIT else "cp-sat")
    if chosen == "enumeration":
        return _by_enumeration(rules, history, limit, search_limit)
    if chosen == "cp-sat":
        return _by_solver(rules, history, limit)
    raise ValueError(f"method must be 'enumeration' or 'cp-sat', not {method!r}")


def _restoring(suspect: Suspect) -> str:
    """``; 208 codes fit without it``: how many codes leaving the score out lets fit."""
    if suspect.restores <= 0:
        return ""
    least = "at least " if suspect.restores >= SUSPECT_COUNT_LIMIT and suspect.restores_is_lower_bound else ""
    return f"; {least}{suspect.restores:,} code{'s' if suspect.restores != 1 else ''} fit without it"


def _likeliest_first(suspects: list[Suspect]) -> list[Suspect]:
    """The suspects ordered by how many codes fit once each is left out (most first), then the latest
    guess first (a score typed later has had less checking)."""
    return sorted(suspects, key=lambda s: (-s.restores, -s.number))


# -- enumeration ---------------------------------------------------------------------------------


def _by_enumeration(rules: Rules, history: History, limit: int, search_limit: int) -> Consistency:
    fitting = _fitting_codes(rules, history)
    count, codes = fitting(range(len(history)), limit)
    if count:
        return Consistency(
            True, count, False, codes[0] if codes else fitting(range(len(history)), 1)[1][0], codes=codes
        )
    tried = 0
    for changes in range(1, len(history) + 1):
        tried += math.comb(len(history), changes)
        if tried > search_limit:  # too many sets of scores to try: say so, name none
            return Consistency(False, 0, False, None, [], changes)
        suspects, example = _fewest_changes(history, fitting, changes)
        if suspects:
            return Consistency(False, 0, False, example, suspects, changes)
    raise AssertionError("dropping every score always fits")  # pragma: no cover


def _fitting_codes(rules: Rules, history: History) -> Callable[[Iterable[int], int], tuple[int, list[Code]]]:
    """Counting fitting codes: by the plain scorer when the game is small (no kernel to load), else by
    the kernels."""
    if rules.size * max(len(history), 1) <= PLAIN_SCORING_PAIRS:
        every = [rules.code(c) for c in _all_colors(rules)]

        def plain(kept: Iterable[int], limit: int) -> tuple[int, list[Code]]:
            scored = [history[k] for k in kept]
            fits = [c for c in every if all(score(c, g) == f for g, f in scored)]
            return len(fits), fits[:limit]

        return plain
    from keypeg.kernels import CodeSpace, feedback_ordinal

    space = CodeSpace.of(rules)
    indexed = [(space.index(g), feedback_ordinal(f, rules.pegs)) for g, f in history]

    def fast(kept: Iterable[int], limit: int) -> tuple[int, list[Code]]:
        fits = space.consistent([indexed[k] for k in kept])
        return int(fits.size), [space.code(int(i)) for i in fits[:limit]]

    return fast


def _all_colors(rules: Rules) -> Iterable[tuple[int, ...]]:
    """Every code's colours in order (the kernels' order)."""
    colors = range(rules.num_colors)
    if rules.repeats:
        return itertools.product(colors, repeat=rules.pegs)
    return itertools.permutations(colors, rules.pegs)


def _fewest_changes(
    history: History, fitting: Callable[[Iterable[int], int], tuple[int, list[Code]]], changes: int
) -> tuple[list[Suspect], Code | None]:
    """Suspects when ``changes`` scores must change: with one, every score that alone can be fixed;
    with more, the first set that works."""
    found: list[Suspect] = []
    example: Code | None = None
    for dropped in itertools.combinations(range(len(history)), changes):
        count, codes = fitting((k for k in range(len(history)) if k not in dropped), 1)
        if not count:
            continue
        code = codes[0]
        suspects = [
            Suspect(k + 1, history[k][0], history[k][1], score(code, history[k][0]), code, count) for k in dropped
        ]
        if changes > 1:
            return suspects, code
        found.extend(suspects)
    found = _likeliest_first(found)
    if found:
        example = found[0].example
    return found, example


# -- the constraint solver -----------------------------------------------------------------------


def _model(rules: Rules, history: History, relaxable: bool) -> tuple[Any, list[list[Any]], list[Any]]:
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    pegs, colors = rules.pegs, rules.num_colors
    x = [[model.new_bool_var(f"x{p}_{c}") for c in range(colors)] for p in range(pegs)]
    for p in range(pegs):
        model.add_exactly_one(x[p])
    counts = []
    for c in range(colors):
        n = model.new_int_var(0, pegs if rules.repeats else 1, f"n{c}")
        model.add(n == sum(x[p][c] for p in range(pegs)))
        counts.append(n)
    relax = []
    for k, (guess, feedback) in enumerate(history):
        black = sum(x[p][c] for p, c in enumerate(guess.colors))
        common = []
        for color in sorted(set(guess.colors)):
            m = model.new_int_var(0, pegs, f"m{k}_{color}")
            model.add_min_equality(m, [counts[color], guess.colors.count(color)])
            common.append(m)
        if relaxable:
            r = model.new_bool_var(f"wrong{k}")
            model.add(black == feedback.black).only_enforce_if(~r)
            model.add(sum(common) == feedback.black + feedback.white).only_enforce_if(~r)
            relax.append(r)
        else:
            model.add(black == feedback.black)
            model.add(sum(common) == feedback.black + feedback.white)
    return model, x, relax


def _decode(rules: Rules, solver: Any, x: list[list[Any]]) -> Code:
    return rules.code([next(c for c, var in enumerate(row) if solver.value(var)) for row in x])


def _cp_solver() -> Any:
    """A CP-SAT solver on one thread that leaves Ctrl-C to keypeg: by default CP-SAT takes over
    SIGINT while it solves, which breaks a later search's clean stop in the same process."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    return solver


def _by_solver(rules: Rules, history: History, limit: int) -> Consistency:
    from ortools.sat.python import cp_model

    model, x, _ = _model(rules, history, relaxable=False)
    solver = _cp_solver()
    solver.parameters.enumerate_all_solutions = True
    found: list[Code] = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found.append(_decode(rules, self, x))
            if len(found) >= limit:
                self.stop_search()

    status = solver.solve(model, Collect())
    if found:
        complete = status == cp_model.OPTIMAL and len(found) < limit
        codes = sorted(found, key=lambda c: c.colors)
        return Consistency(True, len(found), not complete, codes[0], method="cp-sat", codes=codes)
    return _corrections_by_solver(rules, history)


def _corrections_by_solver(rules: Rules, history: History) -> Consistency:

    model, x, relax = _model(rules, history, relaxable=True)
    model.minimize(sum(relax))
    solver = _cp_solver()
    solver.solve(model)
    changes = round(solver.objective_value)
    code = _decode(rules, solver, x)
    if changes == 1:
        suspects = []
        for k, (guess, given) in enumerate(history):
            rest = [h for j, h in enumerate(history) if j != k]
            fits = _first_fit(rules, rest)
            if fits is not None:
                restores = _count_fits(rules, rest, SUSPECT_COUNT_LIMIT)
                suspects.append(
                    Suspect(k + 1, guess, given, score(fits, guess), fits, restores, restores >= SUSPECT_COUNT_LIMIT)
                )
        suspects = _likeliest_first(suspects)
        return Consistency(False, 0, False, suspects[0].example, suspects, 1, method="cp-sat")
    wrong = [k for k, r in enumerate(relax) if solver.value(r)]
    suspects = [Suspect(k + 1, history[k][0], history[k][1], score(code, history[k][0]), code) for k in wrong]
    return Consistency(False, 0, False, code, suspects, changes, method="cp-sat")


def _first_fit(rules: Rules, history: History) -> Code | None:
    from ortools.sat.python import cp_model

    model, x, _ = _model(rules, history, relaxable=False)
    solver = _cp_solver()
    status = solver.solve(model)
    return _decode(rules, solver, x) if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None


SUSPECT_COUNT_LIMIT = 50
"""With the constraint solver, the codes each suspect restores are counted up to this many (to order them)."""


def _count_fits(rules: Rules, history: History, limit: int) -> int:
    """How many codes fit ``history``, counted by the constraint solver up to ``limit``."""
    from ortools.sat.python import cp_model

    model, _, _ = _model(rules, history, relaxable=False)
    solver = _cp_solver()
    solver.parameters.enumerate_all_solutions = True
    found = [0]

    class Count(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found[0] += 1
            if found[0] >= limit:
                self.stop_search()

    solver.solve(model, Count())
    return found[0]
