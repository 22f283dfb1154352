"""What the HTML pages share: the Jinja2 templates (autoescaped), rendering a page with the session
it needs, the checks every form passes, and pegs as the page draws them.

Pages are server-rendered and work as plain HTML forms; the ES modules of ``static/`` (``main.js`` loads
them) only make them quicker (forms sent in the background, the board built by clicking pegs or typing).
Every form carries the session's CSRF token in a hidden ``csrf`` field, and the request must come from this
site's origin.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING, Annotated, Any

import jinja2
from fastapi import Form, HTTPException, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from keypeg.code import Feedback
from keypeg.errors import KeypegError, UnavailableError
from keypeg.rules import Rules
from keypeg.text import visible
from keypeg.variants import VARIANTS, rules_from_options
from keypeg.web.sessions import WebSession, check_origin, current, open_session

if TYPE_CHECKING:
    from keypeg.strategies import Choice

__all__ = [
    "TEMPLATES",
    "STATIC",
    "page",
    "error_page",
    "form_session",
    "BACK_TO_LENGTH",
    "back_to",
    "redirect",
    "Peg",
    "pegs_of",
    "palette",
    "RulesForm",
    "Csrf",
    "whole_number",
    "rules_form",
    "form_query",
]

STATIC = str(files("keypeg.web") / "static")
"""The folder served at ``/static``: the style sheet and the script, written for keypeg."""

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(files("keypeg.web") / "templates")),
    autoescape=True,  # every value is text: no user data is ever marked safe
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)

NAMED = ("red", "green", "blue", "yellow", "white", "black", "orange", "purple")
"""Colour names the style sheet knows (class ``c-red`` ...); other colours get ``c-1`` .. ``c-26`` by index."""


@dataclass(frozen=True)
class Peg:
    """A peg as drawn: its symbol (printed on it, for colour-blind players), its name, and the style
    sheet's class for its colour (no inline styles: the Content-Security-Policy forbids them)."""

    symbol: str
    name: str
    css: str


def palette(rules: Rules) -> list[Peg]:
    """The pegs of ``rules``, one per colour (the blank last, when the rules have blanks)."""
    found = []
    for color in range(rules.num_colors):
        symbol = rules.symbol(color)
        if color == rules.blank:
            found.append(Peg(symbol, "blank", "c-blank"))
            continue
        name = rules.names[color] if color < len(rules.names) else ""
        css = f"c-{name}" if name in NAMED else f"c-{color % 26 + 1}"
        found.append(Peg(symbol, name or f"colour {symbol}", css))
    return found


def pegs_of(rules: Rules, code: str) -> list[Peg]:
    """The pegs of a code written in the rules' own symbols."""
    colours = palette(rules)
    return [colours[c] for c in rules.parse(code).colors]


def key_pegs(feedback: Feedback, rules: Rules | None = None) -> str:
    """A score for screen readers and text: ``2 black, 1 white`` (in the words of ``rules``' feedback:
    ``2 black``, ``3 colours right``)."""
    return rules.say(feedback) if rules is not None else f"{feedback.black} black, {feedback.white} white"


def answers(rules: Rules, choice: Choice) -> list[Feedback]:
    """The answers any of ``choice``'s ranked guesses can get, in the rules' order."""
    return [f for f in rules.feedbacks() if any(f in g.parts for g in choice.ranked)]


FEEDBACKS = {"standard": "black and white pegs", "colours": "colours only", "black": "black pegs only"}
"""The form's Feedback choices (value: label); empty keeps the preset's."""


TEMPLATES.globals.update(
    palette=palette,
    pegs_of=pegs_of,
    key_pegs=key_pegs,
    answers=answers,
    presets=list(VARIANTS.values()),
    feedbacks=FEEDBACKS,
)


def page(request: Request, template: str, *, status: int = 200, **context: Any) -> HTMLResponse:
    """Render ``template`` for the request's session (made, and its cookie set, on a first visit)."""
    holder = Response()
    session = open_session(request, holder)
    html = render(request, session, template, **context)
    response = HTMLResponse(html, status_code=status)
    for name, value in holder.raw_headers:
        if name == b"set-cookie":
            response.raw_headers.append((name, value))
    return response


def render(request: Request, session: WebSession, template: str, **context: Any) -> str:
    """The HTML of ``template`` for ``session``: every page's one rendering (a page's GET, and the page a live
    stream sends its follower at each change)."""
    context = {"error": "", **context}
    return TEMPLATES.get_template(template).render(
        request=request, session=session, player=session.person, csrf=session.csrf, **context
    )


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    """A page saying what went wrong (no session is made for it; when the store cannot say whose session
    it is, the page is shown to nobody in particular rather than failing in turn)."""
    try:
        session = current(request)
    except UnavailableError:
        session = None
    heading = {403: "Refused", 404: "Not found", 409: "Conflict", 429: "Too many attempts"}.get(status, "Sorry")
    html = TEMPLATES.get_template("error.html").render(
        request=request,
        player=session.person if session is not None else None,
        active="",
        status=status,
        heading=heading if status < 500 else "Something went wrong",
        message=visible(message, 400),
    )
    return HTMLResponse(html, status_code=status)


def form_session(request: Request, csrf: str) -> WebSession:
    """The session a form was sent from, after the origin and CSRF checks (403 otherwise)."""
    session = current(request)
    if session is None:
        raise HTTPException(403, "your session has expired: reload the page and try again")
    check_origin(request)
    if not hmac.compare_digest(csrf.encode(), session.csrf.encode()):
        raise HTTPException(403, "this form is out of date: reload the page and try again")
    return session


BACK_TO_LENGTH = 300
"""The longest address a form goes back to once done (:func:`back_to`)."""


def back_to(raw: str | None) -> str | None:
    """``raw`` as a page of this site to go back to after a form (``/players?next=...``): a path of
    printable ASCII, at most :data:`BACK_TO_LENGTH` characters, that names no other site (not ``//host``
    nor ``/\\host``); else ``None``."""
    if not raw or len(raw) > BACK_TO_LENGTH or not raw.isascii() or not raw.isprintable() or " " in raw:
        return None
    if not raw.startswith("/") or raw[1:2] in ("/", "\\"):
        return None
    return raw


def redirect(url: str) -> RedirectResponse:
    """After a form that changed something: see the result at ``url`` (a reload does not send it again)."""
    return RedirectResponse(url, status_code=303)


@dataclass(frozen=True)
class RulesForm:
    """The rule-set fields of a form, as typed (an empty field keeps the preset's value)."""

    variant: str = "classic"
    pegs: str = ""
    colors: str = ""
    rows: str = ""
    repeats: str = ""
    blanks: str = ""
    feedback: str = ""

    def rules(self) -> Rules:
        """The rules the fields describe (:class:`KeypegError`, a usage error, when they describe none)."""
        return rules_from_options(
            self.variant.strip() or None,
            _number("pegs", self.pegs),
            _number("colours", self.colors),
            _choice("repeats", self.repeats),
            _choice("blanks", self.blanks),
            _number("rows", self.rows),
            _feedback(self.feedback),
        )


def whole_number(text: str, field: str) -> int:
    """A form field's whole number (a usage error, naming the field, otherwise)."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 4:
        raise KeypegError(f"{field} must be a whole number, not {visible(text, 20)!r}")
    return int(text)


def _number(field: str, text: str) -> int | None:
    return whole_number(text, field) if text.strip() else None


def _choice(field: str, text: str) -> bool | None:
    if text not in ("", "yes", "no"):
        raise KeypegError(f"{field} must be yes, no or empty, not {visible(text, 20)!r}")
    return None if not text else text == "yes"


def _feedback(text: str) -> str | None:
    text = text.strip().lower()
    if text and text not in (*FEEDBACKS, "colors"):
        raise KeypegError(f"feedback must be standard, colours or black, not {visible(text, 20)!r}")
    return text or None


Csrf = Annotated[str, Form(max_length=128)]
"""The hidden ``csrf`` field every form sends."""
Field = Annotated[str, Form(max_length=64)]


def rules_form(
    variant: Field = "classic",
    pegs: Field = "",
    colors: Field = "",
    rows: Field = "",
    repeats: Field = "",
    blanks: Field = "",
    feedback: Field = "",
) -> RulesForm:
    """The rule-set fields of a form sent by POST."""
    return RulesForm(variant, pegs, colors, rows, repeats, blanks, feedback)


Param = Annotated[str, Query(max_length=64)]


def form_query(
    variant: Param = "classic",
    pegs: Param = "",
    colors: Param = "",
    rows: Param = "",
    repeats: Param = "",
    blanks: Param = "",
    feedback: Param = "",
) -> RulesForm:
    """The rule-set fields of a form sent by GET (a page that can be bookmarked)."""
    return RulesForm(variant, pegs, colors, rows, repeats, blanks, feedback)
