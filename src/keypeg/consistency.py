"""Is there a secret that fits these scores? Counting, proving none, and finding the likely mistake.

Stuckman and Zhang (2005) showed the question NP-complete. Rule sets small enough to
enumerate are answered by the kernels; larger ones by a constraint solver (OR-Tools
CP-SAT): one Boolean per peg and colour, the black pegs of each guess as a sum, and
black plus white as the sum over colours of the smaller of the two colour counts (only the
first under the ``black`` feedback, only the second under ``colours``, where the pegs are kept
in colour order so that each set of colours is one solution). :func:`check` chooses.

When no code fits, the fewest scores to change so that one does are found (the
"likely mistake"), with a corrected score for each and a code that fits the
corrected history. When one score alone can be wrong, the suspects are ranked as people
mis-score: the fewest key pegs off first (a peg missed or miscoloured before three), a
winning score (which ends the game, so is not given by mistake) last, then the most codes
the correction lets fit, then the latest guess.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from keypeg.code import Code, Feedback
from keypeg.errors import TooSlowError
from keypeg.feedback import score
from keypeg.limits import (
    DEFAULT_COUNT_LIMIT,
    ENUMERATE_LIMIT,
    PLAIN_SCORING_PAIRS,
    SUSPECT_COUNT_LIMIT,
    SUSPECT_COUNT_NODES,
    SUSPECT_MESSAGE_LIMIT,
    SUSPECT_SEARCH_LIMIT,
)
from keypeg.rules import Rules
from keypeg.text import plural

__all__ = ["Consistency", "Suspect", "check", "pegs_off"]


History = Sequence[tuple[Code, Feedback]]


def pegs_off(given: Feedback, other: Feedback) -> int:
    """How far a codemaker was off who gave ``given`` for ``other``: the fewest key pegs to add, take
    away or turn from black to white (or back).

    >>> pegs_off(Feedback(2, 1), Feedback(1, 2)), pegs_off(Feedback(2, 1), Feedback(1, 1))
    (1, 1)
    >>> pegs_off(Feedback(0, 0), Feedback(3, 0))
    3
    """
    black, white = other.black - given.black, other.white - given.white
    if black * white < 0:
        return max(abs(black), abs(white))
    return abs(black) + abs(white)


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
    """How many codes fit once this score is corrected (0 when several scores must change)."""
    restores_is_lower_bound: bool = False
    """Whether :attr:`restores` is a lower bound (the constraint solver stopped counting)."""

    @property
    def pegs_off(self) -> int:
        """How many key pegs the given score is off the correction."""
        return pegs_off(self.given, self.correction)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "number": self.number,
            "guess": str(self.guess),
            "given": {"black": self.given.black, "white": self.given.white},
            "correction": {"black": self.correction.black, "white": self.correction.white},
            "pegs_off": self.pegs_off,
            "example": str(self.example),
            "restores": self.restores,
            "restores_is_lower_bound": self.restores_is_lower_bound,
        }


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
    """When inconsistent: the scores most likely wrong, likeliest first (with one change), or a smallest
    set to change together."""
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
        if self.suspects and self.changes == 1:
            named = self.suspects[:SUSPECT_MESSAGE_LIMIT]
            first = named[0]
            hints = f"guess {first.number} ({first.guess}) scored {_said(first, first.given)}: "
            hints += f"as {_said(first, first.correction)} it would fit ({_how_likely(first)})"
            for other in named[1:]:
                hints += f"; else guess {other.number} ({other.guess}) as {_said(other, other.correction)}"
                hints += f" ({_how_likely(other)})"
            rest = len(self.suspects) - len(named)
            if rest:
                hints += f"; {plural(rest, 'other score')} alone could be wrong"
            text += f". Likely mistake: {hints}"
            if any(s.restores_is_lower_bound for s in named):
                text += " (counts marked 'at least' are estimates)"
        elif self.suspects:
            hints = f"{self.changes} scores must change: " + ", ".join(
                f"guess {s.number} ({s.guess}) {_said(s, s.given)} -> {_said(s, s.correction)}" for s in self.suspects
            )
            text += f". Likely mistake: {hints} (then {self.example} fits, for one)"
        elif self.changes > 1:
            text += f"; at least {self.changes} of them would have to change, too many ways to name the likely ones"
        return text

    @property
    def counts_are_estimates(self) -> bool:
        """Whether some suspect's count of codes is only a lower bound."""
        return any(s.restores_is_lower_bound for s in self.suspects)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready answer (``suspects`` likeliest first, ``likely`` with each one's figures)."""
        return {
            "consistent": self.consistent,
            "count": self.count,
            "count_is_lower_bound": self.count_is_lower_bound,
            "example": str(self.example) if self.example is not None else None,
            "suspects": [s.number for s in self.suspects],
            "correction": {
                str(s.number): {"black": s.correction.black, "white": s.correction.white} for s in self.suspects
            },
            "likely": [s.as_dict() for s in self.suspects],
            "counts_are_estimates": self.counts_are_estimates,
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
    seconds: float | None = None,
) -> Consistency:
    """Whether some secret fits ``history``; how many (counted up to ``limit`` by the solver); the first
    ``limit`` fitting codes; and if none fits, the likely mistakes. ``method`` forces ``enumeration``
    or ``cp-sat``. By enumeration, the likely mistakes are looked for by leaving sets of scores out in
    turn, up to ``search_limit`` sets (then none is named).

    ``seconds`` bounds the constraint solver's work in all (wall-clock; ``None``: no bound). When it runs
    out while codes are being counted, the answer is partial: the codes found so far, and
    ``count_is_lower_bound`` with a count below ``limit``; when it runs out before the solver can say
    whether any code fits, or which scores are likely wrong, :class:`TooSlowError` is raised."""
    history = [(rules.adopt(guess), rules.check_feedback(feedback)) for guess, feedback in history]
    chosen = method or ("enumeration" if rules.size <= ENUMERATE_LIMIT else "cp-sat")
    if chosen == "enumeration":
        return _by_enumeration(rules, history, limit, search_limit)
    if chosen == "cp-sat":
        return _by_solver(rules, history, limit, _Clock(rules, seconds))
    raise ValueError(f"method must be 'enumeration' or 'cp-sat', not {method!r}")


def _said(suspect: Suspect, feedback: Feedback) -> str:
    """A score in a message: ``2,1`` under standard feedback, in words (``2 black``) under the others."""
    return suspect.guess.rules.show(feedback)


def _how_likely(suspect: Suspect) -> str:
    """``1 peg off; 96 codes fit then, e.g. RRBY``."""
    count = f"{'at least ' if suspect.restores_is_lower_bound else ''}{plural(suspect.restores, 'code')}"
    verb = "fits" if suspect.restores == 1 else "fit"
    return f"{plural(suspect.pegs_off, 'peg')} off; {count} {verb} then, e.g. {suspect.example}"


def _likeliest_first(suspects: list[Suspect], win: Feedback) -> list[Suspect]:
    """The suspects as people mis-score: a winning score (it ends the game) last, the fewest key pegs
    off first, then the most codes the correction lets fit, then the latest guess (a score typed later
    has had less checking)."""
    return sorted(suspects, key=lambda s: (s.given == win, s.pegs_off, -s.restores, -s.number))


def _best_correction(given: Feedback, corrections: dict[Feedback, int]) -> Feedback:
    """The correction people most likely meant: the fewest pegs off, then the one most codes fit, then
    the most black pegs."""
    return min(corrections, key=lambda f: (pegs_off(given, f), -corrections[f], -f.black, f.white))


# -- enumeration ---------------------------------------------------------------------------------


class _Enumerated:
    """The codes that fit a history, or some of its scores, by the plain scorer when the game is small
    (no kernel to load), else by the kernels."""

    def __init__(self, rules: Rules, history: History) -> None:
        self.history = history
        self.space: Any = None
        if rules.size * max(len(history), 1) <= PLAIN_SCORING_PAIRS:
            self.every = [rules.code(c) for c in _all_colors(rules)]
            return
        from keypeg.kernels import CodeSpace, feedback_ordinal

        self.space = CodeSpace.of(rules)
        self.pegs = rules.pegs
        self.indexed = [(self.space.index(g), feedback_ordinal(f, rules.pegs)) for g, f in history]

    def fitting(self, kept: Iterable[int], limit: int) -> tuple[int, list[Code]]:
        """How many codes fit the scores ``kept`` (indices into the history), and the first ``limit``."""
        if self.space is None:
            scored = [self.history[k] for k in kept]
            fits = [c for c in self.every if all(score(c, g) == f for g, f in scored)]
            return len(fits), fits[:limit]
        found = self.space.consistent([self.indexed[k] for k in kept])
        return int(found.size), [self.space.code(int(i)) for i in found[:limit]]

    def by_score(self, left_out: int) -> dict[Feedback, tuple[int, Code]]:
        """The codes that fit every score but number ``left_out``, by the score they give that guess:
        how many, and the first."""
        kept = [k for k in range(len(self.history)) if k != left_out]
        guess = self.history[left_out][0]
        parts: dict[Feedback, tuple[int, Code]] = {}
        if self.space is None:
            scored = [self.history[k] for k in kept]
            for c in self.every:
                if all(score(c, g) == f for g, f in scored):
                    given = score(c, guess)
                    count, first = parts.get(given, (0, c))
                    parts[given] = (count + 1, first)
            return parts
        from keypeg.kernels import ordinal_feedback

        found = self.space.consistent([self.indexed[k] for k in kept])
        for ordinal, part in self.space.split(self.indexed[left_out][0], found):
            parts[ordinal_feedback(ordinal, self.pegs)] = (int(part.size), self.space.code(int(part[0])))
        return parts


def _by_enumeration(rules: Rules, history: History, limit: int, search_limit: int) -> Consistency:
    codes = _Enumerated(rules, history)
    count, fitting = codes.fitting(range(len(history)), limit)
    if count:
        return Consistency(
            True, count, False, fitting[0] if fitting else codes.fitting(range(len(history)), 1)[1][0], codes=fitting
        )
    if len(history) > search_limit:
        return Consistency(False, 0, False, None, [], 1)
    suspects = _single_suspects(rules, history, codes)
    if suspects:
        return Consistency(False, 0, False, suspects[0].example, suspects, 1)
    tried = len(history)
    for changes in range(2, len(history) + 1):
        tried += math.comb(len(history), changes)
        if tried > search_limit:  # too many sets of scores to try: say so, name none
            return Consistency(False, 0, False, None, [], changes)
        found = _changed_together(rules, history, codes, changes)
        if found:
            return Consistency(False, 0, False, found[0].example, found, changes)
    raise AssertionError("dropping every score always fits")  # pragma: no cover


def _single_suspects(rules: Rules, history: History, codes: _Enumerated) -> list[Suspect]:
    """Every score that alone can be corrected, with its likeliest correction, likeliest first."""
    suspects = []
    for k, (guess, given) in enumerate(history):
        parts = codes.by_score(k)
        if not parts:
            continue
        correction = _best_correction(given, {f: n for f, (n, _) in parts.items()})
        restores, example = parts[correction]
        suspects.append(Suspect(k + 1, guess, given, correction, example, restores))
    return _likeliest_first(suspects, rules.win)


def _changed_together(rules: Rules, history: History, codes: _Enumerated, changes: int) -> list[Suspect]:
    """The first set of ``changes`` scores that can be changed together so that a code fits, sets without
    a winning score (never given by mistake) first."""
    sets = sorted(
        itertools.combinations(range(len(history)), changes),
        key=lambda dropped: sum(history[k][1] == rules.win for k in dropped),
    )
    for dropped in sets:
        count, fitting = codes.fitting((k for k in range(len(history)) if k not in dropped), 1)
        if count:
            code = fitting[0]
            return [Suspect(k + 1, history[k][0], history[k][1], score(code, history[k][0]), code) for k in dropped]
    return []


def _all_colors(rules: Rules) -> Iterable[tuple[int, ...]]:
    """Every code's colours in order (the kernels' order; under ``colours``, the sorted codes only)."""
    colors = range(rules.num_colors)
    if not rules.ordered:
        pick = itertools.combinations_with_replacement if rules.repeats else itertools.combinations
        return pick(colors, rules.pegs)
    if rules.repeats:
        return itertools.product(colors, repeat=rules.pegs)
    return itertools.permutations(colors, rules.pegs)


# -- the constraint solver -----------------------------------------------------------------------


class _Model:
    """A CP-SAT model of the secret: one Boolean per peg and colour; for each scored guess, its black
    pegs and its black plus white pegs as expressions, constrained to the score unless left free."""

    def __init__(self, rules: Rules, history: History, free: Iterable[int] = ()) -> None:
        from ortools.sat.python import cp_model

        self.rules = rules
        self.model = cp_model.CpModel()
        pegs, colors = rules.pegs, rules.num_colors
        self.x = [[self.model.new_bool_var(f"x{p}_{c}") for c in range(colors)] for p in range(pegs)]
        for p in range(pegs):
            self.model.add_exactly_one(self.x[p])
        if not rules.ordered:  # a code is its colours: one solution per set, its pegs in colour order
            value = [sum(c * self.x[p][c] for c in range(1, colors)) for p in range(pegs)]
            for p in range(pegs - 1):
                self.model.add(value[p] <= value[p + 1])
        counts = []
        for c in range(colors):
            n = self.model.new_int_var(0, pegs if rules.repeats else 1, f"n{c}")
            self.model.add(n == sum(self.x[p][c] for p in range(pegs)))
            counts.append(n)
        self.black: list[Any] = []
        self.keys: list[Any] = []
        for k, (guess, _) in enumerate(history):
            common = []
            for color in sorted(set(guess.colors)):
                m = self.model.new_int_var(0, pegs, f"m{k}_{color}")
                self.model.add_min_equality(m, [counts[color], guess.colors.count(color)])
                common.append(m)
            self.black.append(sum(self.x[p][c] for p, c in enumerate(guess.colors)))
            self.keys.append(sum(common))
        free = set(free)
        for k, (_, feedback) in enumerate(history):
            if k not in free:
                self.require(k, feedback)

    def require(self, k: int, feedback: Feedback, when: Any = None) -> None:
        """Guess ``k`` scores ``feedback`` (only if the Boolean ``when`` holds, when given)."""
        wanted = []
        if self.rules.feedback != "colours":
            wanted.append(self.model.add(self.black[k] == feedback.black))
        if self.rules.feedback != "black":  # under colours the count is in ``black``, white is 0
            wanted.append(self.model.add(self.keys[k] == feedback.black + feedback.white))
        for constraint in wanted:
            if when is not None:
                constraint.only_enforce_if(when)

    def decode(self, solver: Any) -> Code:
        return self.rules.code([next(c for c, var in enumerate(row) if solver.value(var)) for row in self.x])

    def first(self, clock: _Clock) -> Code | None:
        """A code that fits, if any (:class:`TooSlowError` if ``clock`` runs out before the solver knows)."""
        from ortools.sat.python import cp_model

        solver = clock.solver()
        status = solver.solve(self.model)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return self.decode(solver)
        if status != cp_model.INFEASIBLE:
            raise clock.out("telling whether any code fits")
        return None

    def count(self, limit: int, clock: _Clock) -> tuple[int, list[Code], bool]:
        """How many codes fit, counted up to ``limit``, those found (in the solver's order), and whether
        the count is complete (all found, or ``limit`` reached) rather than cut short by ``clock``."""
        from ortools.sat.python import cp_model

        solver = clock.solver()
        solver.parameters.enumerate_all_solutions = True
        found: list[Code] = []
        decode = self.decode

        class Collect(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                found.append(decode(self))
                if len(found) >= limit:
                    self.stop_search()

        status = solver.solve(self.model, Collect())
        return len(found), found, len(found) >= limit or status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)


class _Clock:
    """The constraint solver's time for one check, shared by its solves (``seconds=None``: unbounded)."""

    def __init__(self, rules: Rules, seconds: float | None = None) -> None:
        self.rules = rules
        self.seconds = seconds
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def solver(self) -> Any:
        """A solver (:func:`_cp_solver`) limited to the time left."""
        solver = _cp_solver()
        if self.deadline is not None:
            solver.parameters.max_time_in_seconds = max(self.deadline - time.monotonic(), 0.001)
        return solver

    def out(self, doing: str) -> TooSlowError:
        """The error when the time ran out while ``doing``."""
        return TooSlowError(
            f"the constraint solver stopped {doing} on {self.rules.describe()} ({self.rules.size:,} codes) "
            f"after the {self.seconds:g} s allowed",
            conclusive=True,
        )


def _cp_solver() -> Any:
    """A CP-SAT solver on one thread that leaves Ctrl-C to keypeg: by default CP-SAT takes over
    SIGINT while it solves, which breaks a later search's clean stop in the same process."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    return solver


def _by_solver(rules: Rules, history: History, limit: int, clock: _Clock) -> Consistency:
    model = _Model(rules, history)
    # one solve first: listing every solution turns the solver's presolve off, and proving that none
    # exists without it can take a minute where this takes a fraction of a second
    example = model.first(clock)
    count, found, complete = model.count(limit, clock) if example is not None else (0, [], True)
    if example is not None:
        codes = sorted(found or [example], key=lambda c: c.colors)
        count = max(count, 1)
        return Consistency(True, count, count >= limit or not complete, codes[0], method="cp-sat", codes=codes)
    suspects = _single_suspects_by_solver(rules, history, clock)
    if suspects:
        return Consistency(False, 0, False, suspects[0].example, suspects, 1, method="cp-sat")
    return _changed_together_by_solver(rules, history, clock)


def _nearest_corrections(rules: Rules, history: History, k: int, clock: _Clock) -> list[Feedback]:
    """The scores of guess ``k`` that make the history fit and are the fewest pegs off the one given
    (none when no score does)."""
    from ortools.sat.python import cp_model

    given = history[k][1]
    options = [f for f in rules.feedbacks() if f != given]
    model = _Model(rules, history, free=[k])
    chosen = [model.model.new_bool_var(f"score{f.black}_{f.white}") for f in options]
    model.model.add_exactly_one(chosen)
    for feedback, var in zip(options, chosen, strict=True):
        model.require(k, feedback, when=var)
    model.model.minimize(sum(pegs_off(given, f) * var for f, var in zip(options, chosen, strict=True)))
    solver = clock.solver()
    status = solver.solve(model.model)
    if status == cp_model.INFEASIBLE:
        return []  # no score of this guess makes the others fit
    if status != cp_model.OPTIMAL:
        raise clock.out("looking for the likely wrong score")
    nearest = round(solver.objective_value)
    return [f for f in options if pegs_off(given, f) == nearest]


def _single_suspects_by_solver(rules: Rules, history: History, clock: _Clock) -> list[Suspect]:
    """Every score that alone can be corrected, ranked as by enumeration: the solver finds the nearest
    corrections and a code for each; the codes each lets fit are counted (:func:`_count_corrections`)."""
    found: dict[tuple[int, Feedback], Code] = {}
    for k in range(len(history)):
        for feedback in _nearest_corrections(rules, history, k, clock):
            example = _Model(rules, _corrected(history, k, feedback)).first(clock)
            if example is not None:
                found[k, feedback] = example
    counted = _count_corrections(rules, history, list(found))
    suspects = []
    for k, (guess, given) in enumerate(history):
        options = {f: counted[j, f][0] for j, f in found if j == k}
        if options:
            correction = _best_correction(given, options)
            restores, estimated = counted[k, correction]
            suspects.append(Suspect(k + 1, guess, given, correction, found[k, correction], restores, estimated))
    return _likeliest_first(suspects, rules.win)


def _count_corrections(
    rules: Rules, history: History, corrections: list[tuple[int, Feedback]]
) -> dict[tuple[int, Feedback], tuple[int, bool]]:
    """How many codes fit with each correction ``(guess, score)``, and whether that is a lower bound.

    A game small enough to enumerate is counted whole, as enumeration counts it. A larger one by the
    kernels' search over the pegs (:func:`keypeg.kernels.count_fitting`), first to
    :data:`SUSPECT_COUNT_LIMIT` codes and a hundredth of :data:`SUSPECT_COUNT_NODES` nodes each; then the
    counts that do not yet decide an order (a lower bound not above another as likely by everything but
    the count) are counted again, eight times further each round, until they do or the nodes run out:
    those stay lower bounds, and are said to be."""
    if rules.size <= ENUMERATE_LIMIT:
        return {
            (k, feedback): (
                _Enumerated(rules, corrected := _corrected(history, k, feedback)).fitting(range(len(corrected)), 0)[0],
                False,
            )
            for k, feedback in corrections
        }
    from keypeg.kernels import count_fitting

    counted: dict[tuple[int, Feedback], tuple[int, bool]] = {}
    spent = 0

    def count(k: int, feedback: Feedback, limit: int, budget: int) -> None:
        nonlocal spent
        fit = count_fitting(rules, _corrected(history, k, feedback), limit=limit, budget=budget)
        spent += fit.nodes
        counted[k, feedback] = (max(fit.codes, 1), not fit.complete)  # the solver found one

    limit, budget = SUSPECT_COUNT_LIMIT, SUSPECT_COUNT_NODES // 100
    for k, feedback in corrections:
        count(k, feedback, limit, budget)
    while spent < SUSPECT_COUNT_NODES and (undecided := _undecided(counted, history, rules.win)):
        limit, budget = limit * 8, budget * 8
        for k, feedback in undecided:
            if spent < SUSPECT_COUNT_NODES:
                count(k, feedback, limit, min(budget, SUSPECT_COUNT_NODES - spent))
    return counted


def _undecided(
    counted: dict[tuple[int, Feedback], tuple[int, bool]], history: History, win: Feedback
) -> list[tuple[int, Feedback]]:
    """The counts that do not decide an order yet: lower bounds not above every other count of a
    correction as likely by everything but the count."""
    groups: dict[tuple[bool, int], list[tuple[int, Feedback]]] = {}
    for k, feedback in counted:
        given = history[k][1]
        groups.setdefault((given == win, pegs_off(given, feedback)), []).append((k, feedback))
    found = []
    for keys in groups.values():
        for key in keys:
            codes, bound = counted[key]
            if bound and any(counted[other][0] >= codes for other in keys if other != key):
                found.append(key)
    return found


def _corrected(history: History, k: int, feedback: Feedback) -> History:
    """``history`` with guess ``k`` scored ``feedback``."""
    return [*history[:k], (history[k][0], feedback), *history[k + 1 :]]


def _changed_together_by_solver(rules: Rules, history: History, clock: _Clock) -> Consistency:
    """The fewest scores to change together, winning scores (never given by mistake) left alone where
    another set of as many will do."""
    model = _Model(rules, history, free=range(len(history)))
    wrong = [model.model.new_bool_var(f"wrong{k}") for k in range(len(history))]
    for k, (_, feedback) in enumerate(history):
        model.require(k, feedback, when=~wrong[k])
    wins = [var for var, (_, feedback) in zip(wrong, history, strict=True) if feedback == rules.win]
    model.model.minimize((len(history) + 1) * sum(wrong) + sum(wins))
    from ortools.sat.python import cp_model

    solver = clock.solver()
    if solver.solve(model.model) != cp_model.OPTIMAL:
        raise clock.out("looking for the likely wrong scores")
    code = model.decode(solver)
    changed = [k for k, var in enumerate(wrong) if solver.value(var)]
    suspects = [Suspect(k + 1, history[k][0], history[k][1], score(code, history[k][0]), code) for k in changed]
    return Consistency(False, 0, False, code, suspects, len(changed), method="cp-sat")
