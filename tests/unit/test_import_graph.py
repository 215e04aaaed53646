"""The import graph points one way.  No module of ``benthic.rules`` imports (even lazily, inside a function) a
module that imports it back, directly or through others; and the packages of ``shared/benthic`` are layers,
each importing only from the layers below it, with the services above them all."""

from __future__ import annotations

import ast
from pathlib import Path

import benthic.rules

RULES = Path(benthic.rules.__file__).parent
SHARED = RULES.parent.parent  # shared/: holds benthic
REPO = SHARED.parent  # holds services

# Bottom first.  A module belongs to the layer of the longest prefix naming it; a layer may import its own
# layer and those below.  A new package of shared/benthic takes its place here (one line): the test fails while a
# module of benthic has no layer.
LAYERS: list[tuple[str, ...]] = [
    ("benthic.rules",),  # pure rules engines: no I/O, nothing of the platform
    ("benthic.i18n",),  # the engines' texts in a language (Babel catalogues)
    # the runtime every layer uses (settings, logs and metrics, Redis connections): it lives in service/
    ("benthic.service.config", "benthic.service.telemetry", "benthic.service.redisconn"),
    ("benthic.game",),  # a game as the platform sees it: envelopes, keys, lifecycle, content packs
    ("benthic.feed",),  # the partition feeds: the notification, its keys and encoding, the consumer groups
    ("benthic.store",),  # the event store: appends a commit with its feed notification
    ("benthic.game.gamestate",),  # lives in game/, folds the store's streams
    ("benthic.archive",),
    ("benthic.service",),  # what every service is made of: HTTP, OpenAPI, admission, start-up
    ("benthic.trust",),
    ("benthic.play",),
    ("benthic.clients",),
    ("benthic.local",),
    ("benthic.cli",),
    ("services",),
]

# The only imports of a higher layer allowed, as (importer, imported) prefixes, each with why it must be.
UPWARD_ALLOWED: list[tuple[str, str]] = [
    ("benthic.service.serve", "services"),  # `benthic serve` runs the services' apps in one process
    ("benthic.cli", "services.archiver.redisgame"),  # `benthic archive backfill` fills the archiver's due sets
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


def _layer(module: str, layers: list[tuple[str, ...]]) -> int | None:
    """The index of ``module``'s layer (the longest prefix naming it), None if no layer names it.  The root
    package ``benthic`` (its version) is under every layer."""
    if module == "benthic":
        return -1
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(layers):
        for prefix in prefixes:
            if _covers(prefix, module) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def _upward(
    graph: dict[str, set[str]], layers: list[tuple[str, ...]], allowed: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The imports of a module of a higher layer than the importer's, except the ``allowed`` ones."""
    out = []
    for importer, imported in sorted(graph.items()):
        for target in sorted(imported):
            low, high = _layer(importer, layers), _layer(target, layers)
            if low is None or high is None or high <= low:
                continue
            if not any(_covers(a, importer) and _covers(b, target) for a, b in allowed):
                out.append((importer, target))
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
        for w in graph[v]:
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


def test_every_module_of_benthic_has_a_layer() -> None:
    graph = _platform_graph()
    assert [m for m in sorted(graph) if _layer(m, LAYERS) is None] == []


def test_the_layers_import_only_downward() -> None:
    assert _upward(_platform_graph(), LAYERS, UPWARD_ALLOWED) == []


def test_every_allowed_upward_import_is_still_made() -> None:
    made = _upward(_platform_graph(), LAYERS, [])
    stale = [(a, b) for a, b in UPWARD_ALLOWED if not any(_covers(a, x) and _covers(b, y) for x, y in made)]
    assert stale == []


def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {"benthic.store.x": {"benthic.feed.y"}, "benthic.feed.y": {"benthic.service.http"},
             "benthic.service.http": {"services.command.app"}, "benthic.game.gamestate": {"benthic.store.x"},
             "benthic.game.keys": {"benthic.rules"}}
    assert _upward(graph, LAYERS, []) == [("benthic.feed.y", "benthic.service.http"),
                                          ("benthic.service.http", "services.command.app")]
    assert _upward(graph, LAYERS, [("benthic.service", "services")]) == [("benthic.feed.y", "benthic.service.http")]
