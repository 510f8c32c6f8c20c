"""The layout rules of the package (README "Layout"): calls flow one way,
cli -> run -> pipeline components -> pure cores, with no import cycle (imports
inside functions included), typer only under ``cli/``, no module over 600
lines, and the gazetteer (a detector) independent of the risk measures."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_textsan"
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, source: str | None = None) -> set[str]:
    """Every spacy_textsan module ``name`` imports, at any depth of its code."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if source is None else source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            # "from .pkg import module" imports the module; "from .module import name" the module
            targets = [f"{base_name}.{a.name}" if f"{base_name}.{a.name}" in MODULES else base_name for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in MODULES and t != name)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def third_party_imports(name: str) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (a list of modules, first == last), or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_checker_finds_cycles_and_resolves_relative_imports():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert "spacy_textsan.run.local" in GRAPH["spacy_textsan.run"]
    assert "spacy_textsan.pipeline" in GRAPH["spacy_textsan.run.local"]
    inside = "def f():\n    from ..io import read_input\n    from . import spark\n    import spacy_textsan.pipeline\n"
    assert imports_of("spacy_textsan.run.files", inside) == {
        "spacy_textsan.io",
        "spacy_textsan.run.spark",
        "spacy_textsan.pipeline",
    }


def test_no_import_cycle():
    assert find_cycle(GRAPH) is None


@pytest.mark.parametrize("name", sorted(MODULES))
def test_typer_only_in_the_cli(name):
    if not name.startswith("spacy_textsan.cli"):
        assert "typer" not in third_party_imports(name)


#: The entry layers: the command line and the web service (``textsan serve``).
ENTRY_LAYERS = ("spacy_textsan.cli", "spacy_textsan.__main__", "spacy_textsan.serve")
#: The web framework: only in the service and its command.
WEB_PACKAGES = {"fastapi", "starlette", "uvicorn", "fastapi_offline"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_calls_flow_one_way(name):
    """Nothing below the CLI imports it; only the CLI and the service import
    the run layer; only the CLI imports the service."""
    if not name.startswith(("spacy_textsan.cli", "spacy_textsan.__main__")):
        assert not {m for m in GRAPH[name] if m.startswith("spacy_textsan.cli")}
        if not name.startswith("spacy_textsan.serve"):
            assert not {m for m in GRAPH[name] if m.startswith("spacy_textsan.serve")}
    if not name.startswith((*ENTRY_LAYERS, "spacy_textsan.run")):
        assert not {m for m in GRAPH[name] if m.startswith("spacy_textsan.run")}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_web_framework_only_in_the_service(name):
    if not name.startswith("spacy_textsan.serve") and name != "spacy_textsan.cli.serve":
        assert not third_party_imports(name) & WEB_PACKAGES


def test_the_service_package_imports_no_web_framework_itself():
    """``textsan`` runs without FastAPI: the CLI imports serve.settings, never the app, at module level."""
    assert not third_party_imports("spacy_textsan.serve") & WEB_PACKAGES
    assert not third_party_imports("spacy_textsan.serve.settings") & WEB_PACKAGES


def test_the_gazetteer_does_not_depend_on_the_risk_measures():
    for name, deps in GRAPH.items():
        if name.startswith("spacy_textsan.gazetteer"):
            assert not {d for d in deps if d.startswith("spacy_textsan.risk")}, name


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    assert len(MODULES[name].read_text(encoding="utf-8").splitlines()) <= MAX_LINES
