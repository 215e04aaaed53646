"""The import graph points one way.  No module of ``benthic.rules`` imports (even lazily, inside a function) a
module that imports it back, directly or through others; the packages of ``shared/benthic`` are floors, each
importing only from the floors below it; the services stand on top, each a floor of its own that imports no other
service; and no two packages import each other, directly or through others."""

from __future__ import annotations

import ast
from pathlib import Path

import benthic.rules

RULES = Path(benthic.rules.__file__).parent
SHARED = RULES.parent.parent  # shared/: holds benthic
REPO = SHARED.parent  # holds services

# The floors of shared/benthic, bottom first, by package (a floor may import its own packages and those below).  A
# new package of shared/benthic takes its place here (one line): the test fails while a module of benthic has none.
LAYERS: list[tuple[str, ...]] = [
    ("benthic.rules",),  # pure rules engines: no I/O, nothing of the platform
    ("benthic.i18n",),  # the engines' texts in a language (Babel catalogues)
    ("benthic.runtime", "benthic.errors", "benthic.patterns"),  # settings, logs, Redis; refusals; patterns
    ("benthic.game",),  # a game as the platform sees it, pure: envelopes, folds, lifecycle, keys, content packs
    ("benthic.feed",),  # the partition feeds: the notification, its keys and encoding, the consumer groups
    ("benthic.store",),  # the event store: appends a commit with its feed notification; the state loader
    ("benthic.archive",),  # the PostgreSQL archive of finished games, and its schedule in Redis
    ("benthic.views",),  # the read side: read models, their reads, live pushes and deltas
    ("benthic.trust",),  # credentials: JWTs, seat tokens, revocation, rate limits
    ("benthic.play",),  # the play path: decide and append
    ("benthic.service",),  # the HTTP face: errors as responses, OpenAPI, admission, bootstrap; `benthic serve`
    ("benthic.clients",),
    ("benthic.local",),
    ("benthic.cli",),
]
# Above them all, each service is a floor of its own (a package of services/, found in the folder): a service
# imports no other; what two services share is a package of benthic.
SERVICES = sorted(f"services.{p.name}" for p in (REPO / "services").iterdir() if (p / "__init__.py").exists())

# The only imports of a higher floor allowed, as (importer, imported) prefixes, each with why it must be.
UPWARD_ALLOWED: list[tuple[str, str]] = [
    ("benthic.service.serve", "services"),  # the composition root: `benthic serve` runs the services' apps
]


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Modules of ``known`` that ``path`` imports anywhere except under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m in known and m != name}


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p, RULES.parent.parent): p for p in RULES.rglob("*.py")}
    known = set(paths)
    graph = {name: _imports(path, name, known) for name, path in paths.items()}
    # importing a package runs its __init__: a package's modules depend on their package only through it
    return graph


def _platform_graph(shared: Path = SHARED, repo: Path = REPO) -> dict[str, set[str]]:
    """Every module of benthic and of the services, with the modules of either it imports."""
    paths = {_module_name(p, shared): p for p in (shared / "benthic").rglob("*.py")}
    paths.update({_module_name(p, repo): p for p in (repo / "services").rglob("*.py")})
    known = set(paths)
    return {name: _imports(path, name, known) for name, path in paths.items()}


def _covers(prefix: str, module: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _floors(layers: list[tuple[str, ...]], services: list[str]) -> list[tuple[str, ...]]:
    """The floors: benthic's packages, then the services, each on a floor of its own."""
    return [*layers, *((service,) for service in services)]


def _package(module: str, floors: list[tuple[str, ...]]) -> str | None:
    """The package (a prefix of a floor) ``module`` belongs to; None if no floor names it.  The root package
    ``benthic`` (its version) and the namespace ``services`` are packages of their own, under every floor."""
    if module in ("benthic", "services"):
        return module
    return next((prefix for floor in floors for prefix in floor if _covers(prefix, module)), None)


def _floor(package: str, floors: list[tuple[str, ...]]) -> int:
    return -1 if package in ("benthic", "services") else next(i for i, floor in enumerate(floors) if package in floor)


def _package_graph(graph: dict[str, set[str]], floors: list[tuple[str, ...]],
                   allowed: list[tuple[str, str]] = UPWARD_ALLOWED) -> dict[str, set[str]]:
    """Package -> the packages its modules import (itself left out), but for the ``allowed`` imports (the composition
    root's, which close a loop by design); modules of no package are left out."""
    out: dict[str, set[str]] = {}
    for importer, imported in graph.items():
        source = _package(importer, floors)
        if source is None:
            continue
        targets = out.setdefault(source, set())
        for module in imported:
            target = _package(module, floors)
            if target is not None and target != source and not any(
                    _covers(a, importer) and _covers(b, module) for a, b in allowed):
                targets.add(target)
    return out


def _upward(
    graph: dict[str, set[str]], floors: list[tuple[str, ...]], allowed: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The imports (importer module, imported module) of a higher floor than the importer's, and those between two
    packages of the services' floors (a service importing another), except the ``allowed`` ones."""
    out = []
    services = len(floors) - sum(1 for f in floors if f[0].startswith("services"))
    for importer, imported in sorted(graph.items()):
        source = _package(importer, floors)
        for module in sorted(imported):
            target = _package(module, floors)
            if source is None or target is None or source == target:
                continue
            low, high = _floor(source, floors), _floor(target, floors)
            if high <= low and not (low >= services and high >= services):
                continue
            if not any(_covers(a, importer) and _covers(b, module) for a, b in allowed):
                out.append((importer, module))
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_in_the_rules_engines() -> None:
    graph = _graph()
    # a package's __init__ importing its own engine module is the registry, not a cycle of rules modules
    for name in list(graph):
        if name.count(".") == 2 and (RULES / name.split(".")[-1] / "__init__.py").exists():
            graph[name] = {m for m in graph[name] if not m.startswith(name + ".")}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_graph_read_is_not_empty() -> None:
    """An empty graph (a moved folder, a reader that finds nothing) would pass every check below."""
    graph = _platform_graph()
    packages = _package_graph(graph, _floors(LAYERS, SERVICES))
    assert len(graph) > 200 and sum(len(v) for v in graph.values()) > 500
    assert set(SERVICES) >= {"services.command", "services.projection", "services.scoring"}
    assert {p for p, targets in packages.items() if targets} >= {*SERVICES, "benthic.store", "benthic.play"}


def test_every_module_has_a_floor() -> None:
    floors = _floors(LAYERS, SERVICES)
    assert [m for m in sorted(_platform_graph()) if _package(m, floors) is None] == []


def test_no_package_cycles() -> None:
    assert _cycles(_package_graph(_platform_graph(), _floors(LAYERS, SERVICES))) == []


def test_the_floors_import_only_downward_and_no_service_imports_another() -> None:
    assert _upward(_platform_graph(), _floors(LAYERS, SERVICES), UPWARD_ALLOWED) == []


def test_every_allowed_upward_import_is_still_made() -> None:
    made = _upward(_platform_graph(), _floors(LAYERS, SERVICES), [])
    stale = [(a, b) for a, b in UPWARD_ALLOWED if not any(_covers(a, x) and _covers(b, y) for x, y in made)]
    assert stale == []


def test_the_checks_find_an_upward_import_an_import_between_services_and_a_package_cycle() -> None:
    floors = _floors(LAYERS, ["services.command", "services.notifier"])
    graph = {"benthic.store.x": {"benthic.feed.y"}, "benthic.feed.y": {"benthic.service.http"},
             "benthic.service.http": {"services.command.app"}, "benthic.game.gamestate": {"benthic.store.x"},
             "benthic.game.keys": {"benthic.rules"}, "services.notifier.app": {"services.command.app"},
             "services.command.app": {"benthic.play.path", "services.command.lobby", "benthic.game.keys"}}
    assert _upward(graph, floors, []) == [("benthic.feed.y", "benthic.service.http"),
                                          ("benthic.game.gamestate", "benthic.store.x"),
                                          ("benthic.service.http", "services.command.app"),
                                          ("services.notifier.app", "services.command.app")]
    assert _upward(graph, floors, [("benthic.service", "services")]) == [
        ("benthic.feed.y", "benthic.service.http"), ("benthic.game.gamestate", "benthic.store.x"),
        ("services.notifier.app", "services.command.app")]
    assert _cycles(_package_graph(graph, floors, [])) == [["benthic.feed", "benthic.game", "benthic.service",
                                                           "benthic.store", "services.command"]]
    # an allowed import closes no loop: benthic.service -> services.command is the composition root's
    assert _cycles(_package_graph(graph, floors, [("benthic.service", "services")])) == []
    del graph["benthic.service.http"]
    assert _cycles(_package_graph(graph, floors, [])) == []
