"""The API's documentation: ``/docs``, a page of the site's own drawn from the OpenAPI description (every
operation with its parameters, body and answers, under the site's style and policy), and ``/docs/try``,
Swagger UI from the ``swagger-ui-bundle`` package (no CDN) to send requests from the browser, started by
``static/api-docs.js`` (no inline script)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, Response

from keypeg.web.pages import TEMPLATES, page

__all__ = ["router", "mount_assets", "TRY_PATH", "TRY_POLICY", "Field", "Operation", "operations", "pieces"]

router = APIRouter(include_in_schema=False)

TRY_PATH = "/docs/try"
TRY_POLICY = (
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
"""The policy of Swagger UI's page: still no script but this site's files; Swagger UI sets style attributes
and draws its icons from ``data:`` images."""
METHODS = ("get", "post", "put", "patch", "delete")
LITERAL = re.compile(r"(?::\w+:)?``?([^`]+)``?")
"""A literal as the docstrings write it: ````text````, or ``:data:`NAME``` (a role dropped)."""


def pieces(text: str) -> list[tuple[bool, str]]:
    """``text`` cut into plain pieces and literals, each as ``(is_literal, piece)``, for the page to show
    literals as code (each piece autoescaped)."""
    found: list[tuple[bool, str]] = []
    at = 0
    for match in LITERAL.finditer(text):
        found += [(False, text[at : match.start()]), (True, match.group(1))]
        at = match.end()
    found.append((False, text[at:]))
    return [(literal, piece) for literal, piece in found if piece]


@dataclass(frozen=True)
class Field:
    """A parameter or a field of a body: its name, where it goes, its type, whether it is required, what
    it means."""

    name: str
    where: str
    kind: str
    required: bool
    about: str


@dataclass(frozen=True)
class Operation:
    """One operation of the API as the page lists it."""

    method: str
    path: str
    tag: str
    summary: str
    about: str
    parameters: tuple[Field, ...]
    body: str
    body_fields: tuple[Field, ...]
    answers: tuple[tuple[str, str, str], ...]
    """Each answer's status, what it means and the name of its model."""


def _name(schema: dict[str, Any]) -> str:
    """The model a schema names, or its type: ``GameOut``, ``string``, ``list of Feedback``."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " or ".join(_name(s) for s in schema["anyOf"])
    if schema.get("type") == "array":
        return f"list of {_name(schema.get('items', {}))}"
    if "enum" in schema:
        return " | ".join(str(v) for v in schema["enum"])
    return str(schema.get("type", "any"))


def _fields(schema: dict[str, Any], components: dict[str, Any]) -> tuple[Field, ...]:
    """The fields of the model ``schema`` names."""
    model = components.get(_name(schema), {}) if "$ref" in schema else schema
    required = set(model.get("required", ()))
    return tuple(
        Field(name, "body", _name(spec), name in required, str(spec.get("description", "")))
        for name, spec in model.get("properties", {}).items()
    )


def operations(openapi: dict[str, Any]) -> list[Operation]:
    """Every operation of an OpenAPI description, in its order."""
    components = openapi.get("components", {}).get("schemas", {})
    found = []
    for path, item in openapi.get("paths", {}).items():
        for method in METHODS:
            spec = item.get(method)
            if spec is None:
                continue
            about = str(spec.get("description", ""))
            parameters = tuple(
                Field(
                    str(p["name"]),
                    str(p.get("in", "")),
                    _name(p.get("schema", {})),
                    bool(p.get("required")),
                    str(p.get("description", "")),
                )
                for p in spec.get("parameters", ())
            )
            body_schema = spec.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            answers = tuple(
                (
                    str(status),
                    str(answer.get("description", "")),
                    _name(answer.get("content", {}).get("application/json", {}).get("schema", {}))
                    if answer.get("content")
                    else "",
                )
                for status, answer in spec.get("responses", {}).items()
            )
            found.append(
                Operation(
                    method=method.upper(),
                    path=path,
                    tag=str((spec.get("tags") or ["games"])[0]),
                    summary=about.split("\n\n", 1)[0].replace("\n", " ") or str(spec.get("summary", "")),
                    about=about.split("\n\n", 1)[1] if "\n\n" in about else "",
                    parameters=parameters,
                    body=_name(body_schema) if body_schema else "",
                    body_fields=_fields(body_schema, components) if body_schema else (),
                    answers=answers,
                )
            )
    return found


@router.get("/docs", response_class=HTMLResponse)
def reference(request: Request) -> Response:
    """Every operation of the JSON API, read from its OpenAPI description."""
    listed = operations(request.app.openapi())
    tags = list(dict.fromkeys(op.tag for op in listed))
    return page(
        request, "api_reference.html", active="API", operations=listed, tags=tags, try_path=TRY_PATH, pieces=pieces
    )


def mount_assets(app: FastAPI) -> None:
    """Swagger UI's files at ``/docs-assets`` and its page at :data:`TRY_PATH`."""
    from fastapi.staticfiles import StaticFiles
    from swagger_ui_bundle import swagger_ui_path

    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")
    html = TEMPLATES.get_template("api_docs.html").render()

    @app.get(TRY_PATH, include_in_schema=False)
    def try_it() -> HTMLResponse:
        return HTMLResponse(html)
