"""The layout rules of the package (docs/architecture.md "Layout"): calls flow
one way, cli -> run -> pipeline components -> pure cores, with no import cycle
(imports inside functions included), typer only under ``cli/``, no module over
600 lines.

The components follow the pipeline's stages, detect -> risk -> decide -> render
(:mod:`spacy_textsan.stages`), one package each: ``detect/`` (privacy_ner,
gazetteer), ``risk/``, ``decide/``, ``render/``. A stage imports nothing of a
later one (imports inside functions included), every component class lives in
the package of its ``textsan_stage``, every registered factory is an instance of
its stage's Protocol, and ``stages.py`` (imported by every decision and render
component) imports no detector at module level."""

import ast
import configparser
import importlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
import spacy

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_textsan"
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, source: str | None = None) -> set[str]:
    """Every spacy_textsan module ``name`` imports, at any depth of its code."""
    return resolve_imports(name, ast.walk(parse(name, source)))


def module_level_imports(name: str, source: str | None = None) -> set[str]:
    """The spacy_textsan modules ``name`` imports when it is imported: its
    imports outside function bodies (class bodies and ``if``/``try`` blocks
    included)."""
    return resolve_imports(name, outside_functions(parse(name, source)))


def parse(name: str, source: str | None) -> ast.Module:
    return ast.parse(MODULES[name].read_text(encoding="utf-8") if source is None else source)


def outside_functions(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and its descendants, less the bodies of functions and lambdas."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from outside_functions(child)


def resolve_imports(name: str, nodes: Iterable[ast.AST]) -> set[str]:
    """The spacy_textsan modules that the import statements among ``nodes`` (of module ``name``) import."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes:
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
    assert "spacy_textsan.run.runner" in GRAPH["spacy_textsan.run"]
    assert "spacy_textsan.pipeline" in GRAPH["spacy_textsan.run.runner"]
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
        if name.startswith("spacy_textsan.detect.gazetteer"):
            assert not {d for d in deps if d.startswith("spacy_textsan.risk")}, name


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    assert len(MODULES[name].read_text(encoding="utf-8").splitlines()) <= MAX_LINES


# -- the stages: detect -> risk -> decide -> render -------------------------------------------------------------------

#: The stages in pipeline order; each is a package of its own (``spacy_textsan.<stage>``).
STAGE_ORDER = ("detect", "risk", "decide", "render")


def stage_package(name: str) -> str | None:
    """The stage whose package holds module ``name`` (None: outside the stage packages)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGE_ORDER else None


def test_the_stage_packages_follow_the_stages():
    from spacy_textsan.stages import STAGES

    assert STAGE_ORDER == STAGES
    assert all(f"spacy_textsan.{stage}" in MODULES for stage in STAGE_ORDER)


@pytest.mark.parametrize("name", sorted(m for m in MODULES if stage_package(m)))
def test_a_stage_imports_no_later_stage(name):
    """detect imports nothing of risk, decide, render; risk nothing of decide,
    render; decide nothing of render (imports inside functions included)."""
    rank = STAGE_ORDER.index(stage_package(name) or "")
    later = {d for d in GRAPH[name] if (s := stage_package(d)) and STAGE_ORDER.index(s) > rank}
    assert not later, f"{name} ({STAGE_ORDER[rank]}) imports a later stage: {sorted(later)}"


def stage_classes() -> dict[str, tuple[str, str]]:
    """``{"module.Class": (module, stage)}`` of every class that sets ``textsan_stage`` to a string."""
    found: dict[str, tuple[str, str]] = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for stmt in node.body:
                targets = (
                    stmt.targets
                    if isinstance(stmt, ast.Assign)
                    else [stmt.target]
                    if isinstance(stmt, ast.AnnAssign)
                    else []
                )
                value = getattr(stmt, "value", None)
                if any(isinstance(t, ast.Name) and t.id == "textsan_stage" for t in targets) and (
                    isinstance(value, ast.Constant) and isinstance(value.value, str)
                ):
                    found[f"{name}.{node.name}"] = (name, value.value)
    return found


def test_every_component_lives_in_the_package_of_its_stage():
    classes = stage_classes()
    assert {stage for _, stage in classes.values()} == set(STAGE_ORDER)
    misplaced = {cls: stage for cls, (module, stage) in classes.items() if stage_package(module) != stage}
    assert not misplaced, f"classes outside the package of their textsan_stage: {misplaced}"


def registered_factories() -> dict[str, str]:
    """The spacy-textsan factories of ``setup.cfg`` (``spacy_factories``): ``{name: "module:function"}``."""
    config = configparser.ConfigParser()
    config.read(PACKAGE.parent / "setup.cfg", encoding="utf-8")
    lines = config["options.entry_points"]["spacy_factories"].strip().splitlines()
    return {name.strip(): target.strip() for name, _, target in (line.partition("=") for line in lines)}


@pytest.mark.parametrize("factory", sorted(registered_factories()))
def test_every_factory_is_an_instance_of_its_stage_protocol(factory):
    """Built on a blank English pipeline with its default config (offline)."""
    from spacy_textsan.stages import STAGE_PROTOCOLS, stage_of

    module, _, function = registered_factories()[factory].partition(":")
    assert callable(getattr(importlib.import_module(module), function))  # the entry point resolves
    component = spacy.blank("en").add_pipe(factory)
    stage = stage_of(component)
    assert stage is not None, f"{factory}: no textsan_stage"
    assert isinstance(component, STAGE_PROTOCOLS[stage])
    others = [other for other in STAGE_PROTOCOLS if other != stage and isinstance(component, STAGE_PROTOCOLS[other])]
    assert not others, f"{factory} ({stage}) also passes for the stage Protocols of {others}"
    assert stage_package(type(component).__module__) == stage


@pytest.mark.parametrize("factory", sorted(registered_factories()))
def test_every_factory_says_what_it_reads_and_writes(factory):
    """The Protocol's ``textsan_reads`` and its stage's writes attribute name Doc and Span attributes
    that exist, and the writes cover what the factory ``assigns``."""
    from spacy.tokens import Doc, Span

    from spacy_textsan.stages import STAGE_PROTOCOLS, stage_of

    nlp = spacy.blank("en")
    component = nlp.add_pipe(factory)
    protocol = STAGE_PROTOCOLS[stage_of(component)]
    writes_attribute = next(a for a in protocol.__annotations__ if a not in ("textsan_stage", "textsan_reads"))
    reads, writes = component.textsan_reads, getattr(component, writes_attribute)
    assert reads and writes
    for name in (*reads, *writes):
        owner, _, attribute = name.partition("._.")
        if attribute:
            assert {"doc": Doc, "span": Span}[owner].has_extension(attribute), f"{factory}: no extension {name}"
        else:
            assert name in ("doc.text", "doc.spans"), f"{factory}: {name}"
    assigned = set(nlp.get_pipe_meta(factory).assigns)
    assert assigned <= set(writes), f"{factory} assigns {sorted(assigned - set(writes))} it does not declare"


def test_the_stage_guard_imports_no_detector_at_module_level():
    """Every decision and render component imports ``spacy_textsan.stages``:
    it imports the rule layer of privacy_ner only when a pipeline without a
    detector needs it."""
    detectors = {m for m in module_level_imports("spacy_textsan.stages") if stage_package(m) == "detect"}
    assert not detectors
    assert "spacy_textsan.detect.privacy_ner.host_rules" in GRAPH["spacy_textsan.stages"]  # inside a method
    inside = (
        "import spacy_textsan.io\nclass A:\n    from . import pipeline\n\n    def f(self):\n        from . import run\n"
    )
    assert module_level_imports("spacy_textsan.stages", inside) == {"spacy_textsan.io", "spacy_textsan.pipeline"}
