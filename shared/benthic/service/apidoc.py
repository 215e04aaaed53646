"""The exact OpenAPI of the HTTP services.

Litestar generates the paths, parameters and security from the routes; :func:`finish` then makes each
documented operation say what the service really answers, from what the route declares with
``opt=doc(...)``:

- its error answers: every status with the ``{code, message, details}`` body, ``code`` an enum of the codes
  the route can give (``benthic.errors``), ``WWW-Authenticate`` on 401 and ``Retry-After`` on 429/503.
  Added by themselves: the body errors (400 ``invalid_json``/``invalid_request``/``body_too_deep``, 413) on
  routes with a body, ``invalid_request`` on routes with query parameters or constrained path parameters,
  ``not_found`` on routes with an ``{x:int}`` path parameter, ``store_unavailable`` unless ``store=False``,
  ``overloaded`` (admission control), and 414/431 (the request head's limits, ``benthic.service.headlimits``);
- its success body: the msgspec type of the handler's ``data`` and return annotation (msgspec's own JSON
  Schema, the types that decode and encode the bodies), or ``ok=`` (a type, or a JSON Schema for bodies the
  route writes as bytes), with ``media_type=``, ``ok_headers=`` and other media types ``also=``;
  ``not_modified=True`` adds the 304;
- ``body=`` replaces the request body's schema (constraints the type alone cannot say).

Parameter constraints come from the handler's signature (``Annotated[int, Parameter(ge=1)]``): Litestar both
documents and enforces them.  405 answers carry ``Allow`` (benthic.service.http).
"""

from __future__ import annotations

import copy
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from litestar import Litestar, MediaType, Request
from litestar.openapi.plugins import OpenAPIRenderPlugin

from benthic.errors import ERROR_CODES, RULE

DOC = "benthic_doc"
PREFIX = "#/components/schemas/"

Schema = dict[str, Any]
# A schema, or a function of the documents' shared components returning one (for schemas built when the
# document is, e.g. from the registered engines).
SchemaSource = Schema | Callable[[dict[str, Any]], Schema]


@dataclass(frozen=True)
class Doc:
    errors: tuple[str, ...]
    ok: Any = None
    media_type: str | None = None
    ok_headers: dict[str, str] = field(default_factory=dict)
    not_modified: bool = False
    body: SchemaSource | None = None
    store: bool = True
    description: str | None = None
    also: dict[str, Schema] = field(default_factory=dict)


def doc(
    *errors: str,
    ok: Any = None,
    media_type: str | None = None,
    ok_headers: dict[str, str] | None = None,
    not_modified: bool = False,
    body: SchemaSource | None = None,
    store: bool = True,
    description: str | None = None,
    also: dict[str, Schema] | None = None,
) -> dict[str, Any]:
    """A route's ``opt``: the error codes it can give (``benthic.errors``) and what its success is."""
    unknown = [c for c in errors if not _entries(c)]
    if unknown:
        raise ValueError(f"undocumented error codes {unknown}: add them to benthic.errors")
    return {DOC: Doc(tuple(errors), ok, media_type, ok_headers or {}, not_modified, body, store, description,
                     also or {})}


def _entries(code: str) -> list[tuple[int, str]]:
    """The (status, code) pairs a declared code stands for: every status of the code, or the one of
    ``"422:unknown_game_type"``."""
    status, _, name = code.rpartition(":")
    return [(e.status, e.code) for e in ERROR_CODES if e.code == name and (not status or str(e.status) == status)]


BODY_ERRORS = ("invalid_json", "invalid_request", "body_too_deep", "body_too_large")

_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"description": "the bearer challenge (RFC 6750)", "required": True,
                               "schema": {"type": "string"}}},
    429: {"Retry-After": {"description": "seconds until the limit allows again", "required": True,
                          "schema": {"type": "string", "pattern": "^[0-9]+$"}}},
    503: {"Retry-After": {"description": "seconds to wait before retrying (store, archive, live capacity)",
                          "schema": {"type": "string", "pattern": "^[0-9]+$"}}},
}

ERROR_BODY: Schema = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "details": {"anyOf": [{"type": "object"}, {"type": "null"}]},
    },
    "additionalProperties": False,
}


def _error_response(status: int, codes: list[str]) -> dict[str, Any]:
    known = {e.code: e.meaning for e in ERROR_CODES if e.status == status}
    named = sorted(c for c in codes if c != RULE)
    code_schema: Schema = {"type": "string", "enum": named}
    if RULE in codes:
        code_schema = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$",
                       "description": "the rule's code (" + ", ".join(f"`{c}`" for c in named) + " or another)"}
    lines = [f"- `{code}`: {known[code]}" for code in named]
    if RULE in codes:
        lines.append(f"- any other code: {known[RULE]}")
    body = copy.deepcopy(ERROR_BODY)
    body["properties"]["code"] = code_schema
    response: dict[str, Any] = {"description": "\n".join(lines), "content": {"application/json": {"schema": body}}}
    if status in _HEADERS:
        response["headers"] = copy.deepcopy(_HEADERS[status])
    return response


def _unwrap(annotation: Any) -> Any:
    """``T`` of ``Response[T]``/``T | None`` as the handler declares its answer; None when it says nothing."""
    origin = typing.get_origin(annotation)
    if origin is not None and getattr(origin, "__name__", "") == "Response":
        (annotation,) = typing.get_args(annotation)
    if annotation in (Any, bytes, None, type(None)) or isinstance(annotation, str):
        return None
    return annotation


class _Components:
    """msgspec's schemas of the types the operations name, gathered for one call (shared components)."""

    def __init__(self) -> None:
        self.types: list[Any] = []
        self.refs: dict[int, str] = {}

    def ref(self, kind: Any) -> Schema:
        placeholder = f"__msgspec_{len(self.types)}"
        self.types.append(kind)
        return {"$ref": placeholder}

    def resolve(self, document: dict[str, Any]) -> None:
        if not self.types:
            return
        schemas, components = msgspec.json.schema_components(self.types, ref_template=PREFIX + "{name}")
        declared = _declared_names(self.types)
        if declared:
            if clash := set(declared.values()) & (set(components) - set(declared)):
                raise ValueError(f"two components would be named {sorted(clash)}")
            schemas = _renamed(schemas, declared)
            components = {declared.get(name, name): _renamed(schema, declared) for name, schema in components.items()}
            for name in declared:  # Litestar's own schema of the type, under its class name: replaced by ours
                document["components"]["schemas"].pop(name, None)
        document["components"]["schemas"].update(components)
        mapping = {f"__msgspec_{i}": schema for i, schema in enumerate(schemas)}

        def walk(node: Any) -> Any:
            if isinstance(node, dict):
                if set(node) == {"$ref"} and node["$ref"] in mapping:
                    return mapping[node["$ref"]]
                return {k: walk(v) for k, v in node.items()}
            if isinstance(node, list):
                return [walk(v) for v in node]
            return node

        document["paths"] = walk(document["paths"])


def _declared_names(types: list[Any]) -> dict[str, str]:
    """{class name: the component name it declares} for the Structs among ``types`` and inside them that declare
    one with ``__schema_name__`` (Litestar's convention): a public schema keeps its name across a rename of its
    Python class, so clients generated from the document keep theirs."""
    names: dict[str, str] = {}
    seen: set[int] = set()

    def walk(node: Any) -> None:
        if isinstance(node, tuple):
            for item in node:
                walk(item)
        elif isinstance(node, msgspec.inspect.Field):
            walk(node.type)
        elif isinstance(node, msgspec.inspect.Type) and id(node) not in seen:
            seen.add(id(node))
            if isinstance(node, msgspec.inspect.StructType) and (name := getattr(node.cls, "__schema_name__", None)):
                names[node.cls.__name__] = name
            for member in msgspec.structs.fields(node):
                walk(getattr(node, member.name))

    walk(tuple(msgspec.inspect.multi_type_info(types)))
    return names


def _renamed(node: Any, names: dict[str, str]) -> Any:
    """``node`` with its references to the components ``names`` renames renamed."""
    if isinstance(node, dict):
        return {key: PREFIX + names.get(value[len(PREFIX):], value[len(PREFIX):])
                if key == "$ref" and isinstance(value, str) and value.startswith(PREFIX) else _renamed(value, names)
                for key, value in node.items()}
    if isinstance(node, list):
        return [_renamed(item, names) for item in node]
    return node


def _schema_of(source: Any, components: _Components, shared: dict[str, Any]) -> Schema:
    if callable(source) and not isinstance(source, type) and typing.get_origin(source) is None:
        return source(shared)  # type: ignore[no-any-return]
    if isinstance(source, dict):
        return source
    return components.ref(source)


_CONSTRAINTS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum",
                "min_length": "minLength", "max_length": "maxLength", "pattern": "pattern"}


def _parameter(parameter: dict[str, Any], handler: Any) -> None:
    """An optional query parameter's value with the constraints the handler enforces (Litestar leaves them out
    of optional parameters' schemas; ``null`` stays: Litestar reads ``?x=null`` as absent)."""
    schema = parameter.get("schema", {})
    members = schema.get("oneOf", [])
    if parameter.get("in") != "query" or len(members) != 2 or {"type": "null"} not in members:
        return
    field_definition = handler.parsed_fn_signature.parameters.get(parameter["name"])
    schema = next(m for m in members if m != {"type": "null"})
    kwargs = getattr(field_definition, "kwarg_definition", None)
    for name, keyword in _CONSTRAINTS.items():
        if getattr(kwargs, name, None) is not None:
            schema[keyword] = getattr(kwargs, name)


def _operation(operation: dict[str, Any], handler: Any, spec: Doc, components: _Components,
               shared: dict[str, Any]) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    success = next((s for s in responses if s.startswith("2")), None)
    errors = list(spec.errors)
    parameters = operation.get("parameters", [])
    for parameter in parameters:
        _parameter(parameter, handler)
    if "requestBody" in operation:
        errors += BODY_ERRORS
        data = handler.parsed_fn_signature.parameters.get("data")
        body = spec.body if spec.body is not None else (data.annotation if data is not None else None)
        if body is not None:
            operation["requestBody"]["content"] = {"application/json": {"schema": _schema_of(body, components,
                                                                                             shared)}}
            operation["requestBody"]["required"] = True
    constrained = ("pattern", "minimum", "maximum", "enum", "minLength", "maxLength")
    if any(p.get("in") == "query" or any(k in p.get("schema", {}) for k in constrained) for p in parameters):
        errors.append("invalid_request")
    if any(":int}" in path for path in handler.paths):  # Litestar's own 404 for a segment that is no integer
        errors.append("not_found")
    if spec.store:
        errors.append("store_unavailable")
    errors.append("overloaded")  # admission control (benthic.service.admission) may refuse any route
    errors += ["request_line_too_long", "request_headers_too_large"]  # so may the head's limits (headlimits)
    if spec.description:
        operation["description"] = spec.description
    for guessed in [s for s in responses if not s.startswith("2")]:
        del responses[guessed]  # Litestar's guesses (e.g. its own 400 body): replaced below
    if success is not None:
        ok = spec.ok if spec.ok is not None else _unwrap(handler.parsed_fn_signature.return_type.annotation)
        entry = responses[success]
        if ok is not None:
            entry["content"] = {spec.media_type or "application/json": {"schema": _schema_of(ok, components,
                                                                                              shared)}}
        elif spec.media_type is not None:
            entry["content"] = {spec.media_type: entry.get("content", {}).get(spec.media_type)
                                or {"schema": {"type": "string"}}}
        for media_type, schema in spec.also.items():
            entry.setdefault("content", {})[media_type] = {"schema": schema}
        if spec.ok_headers:
            entry["headers"] = {name: {"description": text, "schema": {"type": "string"}}
                                for name, text in spec.ok_headers.items()}
    if spec.not_modified:
        responses["304"] = {"description": "Not Modified: the client's copy (`If-None-Match`) is current",
                            "headers": {"ETag": {"schema": {"type": "string"}, "required": True}}}
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys(errors):
        for status, name in _entries(code):
            if name not in by_status.setdefault(status, []):
                by_status[status].append(name)
    for status, codes in sorted(by_status.items()):
        responses[str(status)] = _error_response(status, codes)


def finish(document: dict[str, Any], app: Litestar, shared: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Litestar-generated ``document`` made exact from every route's ``doc(...)`` (a copy).  ``shared``:
    components to add (e.g. the game types' schemas, ``benthic.game.gameschemas``)."""
    document = copy.deepcopy(document)
    document.setdefault("components", {}).setdefault("schemas", {})
    shared = shared or {}
    document["components"]["schemas"].update(shared)
    components = _Components()
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            spec = handler.opt.get(DOC)
            if spec is None:
                continue
            for method in handler.http_methods:
                operation = document["paths"].get(route.path_format, {}).get(method.lower())
                if operation is not None:
                    _operation(operation, handler, spec, components, shared)
    components.resolve(document)
    return portable(document)


def portable(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (changed in place) in forms client generators read, each exactly equivalent under JSON Schema
    2020-12 (openapi-python-client refused the first and warned on the others):

    - a tuple's ``items: false`` beside ``prefixItems`` and ``maxItems`` equal to their number goes (redundant);
    - an ``enum`` of booleans only becomes ``type: boolean`` (with ``const`` for a single value);
    - a component's ``title`` other than its key goes: generators name a class by its title, and two game types'
      ``GameStarted`` (or a title equal to another component's key) collided; each is named by its key then."""
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("items") is False and node.get("maxItems") == len(node.get("prefixItems", ())) > 0:
                del node["items"]
            values = node.get("enum")
            if (isinstance(values, list) and values and all(isinstance(v, bool) for v in values)
                    and node.get("type", "boolean") == "boolean"):
                del node["enum"]
                node["type"] = "boolean"
                if len(set(values)) == 1:
                    node["const"] = values[0]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    for key, schema in document.get("components", {}).get("schemas", {}).items():
        if isinstance(schema, dict) and schema.get("title", key) != key:
            del schema["title"]
    return document


class FinishedJson(OpenAPIRenderPlugin):
    """``/schema/openapi.json``: Litestar's document finished by :func:`finish` (once per process)."""

    def __init__(
        self,
        shared: Callable[[], dict[str, Any]] = dict,
        refine: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        path: str = "/openapi.json",
    ) -> None:
        """``shared``: components to add; ``refine``: a last edit of the finished document (typing fields of
        components that the types alone leave open)."""
        super().__init__(path=path, media_type=MediaType.JSON)
        self._shared = shared
        self._refine = refine
        self._body: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._body is None:
            document = finish(openapi_schema, request.app, self._shared())
            self._body = msgspec.json.encode(portable(self._refine(document)) if self._refine else document)
        return self._body
