"""The play layer: the rules of a game in progress for every front end, with no input or output.

Sessions (:class:`BreakSession`, :class:`SolveSession`, :class:`MatchSession`), the codemakers
behind them, the computer's levels and the coach, and what is recorded of a game
(:mod:`keypeg.services.recording` writes it down). See docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from keypeg.play.codemakers import AdversarialCodemaker, Codemaker, FixedCodemaker, RandomCodemaker
from keypeg.play.matches import MatchSession
from keypeg.play.sessions import Action, BreakSession, Help, Session, SolveSession, session_from_state

__all__ = [
    "Action",
    "AdversarialCodemaker",
    "BreakSession",
    "Codemaker",
    "FixedCodemaker",
    "Help",
    "MatchSession",
    "RandomCodemaker",
    "Session",
    "SolveSession",
    "session_from_state",
]
