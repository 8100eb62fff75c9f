"""The layers: imports flow one way, the metric core needs no pandas, modules stay small."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "calreport"

#: Layer of each top-level module or package (lower layers never import higher ones).
LAYERS = {
    "_version": 0, "references": 0, "_validate": 0, "_validate_options": 0,
    "metrics": 1, "profile": 1, "_profile_arrays": 1,
    "settings": 2, "registry": 2, "_finishers": 2, "summary": 3, "_roles": 3, "synthetic": 3,
    "stats": 3, "datasets": 3, "_role_errors": 3,
    "bootstrap": 4, "result": 4,
    "_grouping": 5, "_engine": 5, "_tables": 5, "_metric_methods": 5, "_table_methods": 5,
    "accessor": 6, "plotting": 6, "accumulator": 6, "dask": 6, "polars": 6,
    "_segmented": 5, "functional": 5, "_frames": 5, "_state_results": 6,
    "report": 7, "cli": 8, "_cli_parser": 8, "_cli_commands": 8, "_lazy": 8, "__main__": 9,
    "__init__": 9, "_labels": 1, "_top_label": 1,
    "_warnings": 0, "_numbers": 0, "_result_display": 3, "_progress": 0, "interval_rules": 1,
    "_calibration_tests": 2, "compare": 5, "_paired_test": 5,
    "recalibration": 5,
}


def _module_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


#: Convenience entry points that import a higher layer lazily, inside one function
#: (they return objects of that layer, which loads matplotlib); every other import
#: flows downwards.
LAZY_UPWARD = {("accessor", "report"), ("accessor", "plotting"),
               ("_state_results", "report")}

#: What an import of calreport inside a function may defer: ``import calreport`` loads
#: none of these (each costs a second or more, pandas half a second, or is an optional
#: dependency).
HEAVY = ("pandas", "matplotlib", "jinja2", "weasyprint", "scipy.stats", "statsmodels", "dask",
         "polars")
_LAZY_NOTE = re.compile(r"#\s*lazy:\s*(" + "|".join(map(re.escape, HEAVY)) + r")\b")


def _imports(path: Path, *, lazy: bool = False) -> set[str]:
    """calreport modules imported at module level (``lazy``: inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # imports for type checkers only (``if TYPE_CHECKING:``) are not run
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and getattr(block.test, "id", None) == "TYPE_CHECKING"
                   for n in ast.walk(block)}
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
             and id(n) not in typing_only and _inside_function(tree, n) == lazy]
    out = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("calreport."):
                out.add(node.module.split(".")[1])
            elif node.module == "calreport":
                out.update("_version" if a.name == "__version__" else a.name
                           for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("calreport."):
                    out.add(a.name.split(".")[1])
    return out


def _inside_function(tree: ast.AST, target: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(child is target for child in ast.walk(node)):
                return True
    return False


FILES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_flow_one_way(path):
    me = _module_of(path)
    if me not in LAYERS:
        pytest.fail(f"{path.name}: place module {me!r} in a layer of tests/test_layers.py")
    for other in _imports(path) - {me}:
        assert other in LAYERS, f"{path}: imports unknown module {other}"
        if me == "__init__":
            continue
        assert LAYERS[other] <= LAYERS[me], (
            f"{path.relative_to(PACKAGE)} (layer {LAYERS[me]}) imports {other} "
            f"(layer {LAYERS[other]})")
    for other in _imports(path, lazy=True) - {me}:
        assert other in LAYERS, f"{path}: imports unknown module {other}"
        if me == "__init__" or LAYERS[other] <= LAYERS[me]:
            continue
        assert (me, other) in LAZY_UPWARD, f"{path}: lazy upward import of {other}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_over_600_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    rel = path.relative_to(PACKAGE).as_posix()
    assert n <= 600, f"{rel} has {n} lines"


def test_metric_core_imports_without_pandas():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'pandas' or name.startswith('pandas.'):\n"
        "            raise ImportError('pandas is blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import importlib.util, pathlib\n"
        "import calreport.metrics.risk, calreport.metrics.weighted, calreport.metrics.binned\n"
        "import calreport.metrics.ranking, calreport.metrics.selective\n"
        "import calreport.metrics.scoring\n"
        "assert 'pandas' not in sys.modules\n"
        "print('ok')\n"
    )
    # import the subpackage without running calreport/__init__ (which registers the
    # pandas accessors): put a bare namespace for calreport first
    pre = (
        "import sys, types, pathlib\n"
        f"pkg = types.ModuleType('calreport'); pkg.__path__ = [{str(PACKAGE)!r}]\n"
        "sys.modules['calreport'] = pkg\n"
    )
    out = subprocess.run([sys.executable, "-c", pre + code], capture_output=True,
                         text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in FILES}


def _package(name: str) -> str:
    """``calreport.<sub>`` for a module of a subpackage, else ``calreport``."""
    parts = name.split(".")
    is_pkg = MODULES[name].name == "__init__.py"
    return ".".join(parts[:2]) if (is_pkg or len(parts) > 2) else "calreport"


def _from_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of every ``from calreport... import name`` that runs, lazy ones
    too (imports for type checkers only are left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and getattr(block.test, "id", None) == "TYPE_CHECKING"
                   for n in ast.walk(block)}
    return [(n.module, a.name) for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module
            and n.module.startswith("calreport") and id(n) not in typing_only
            for a in n.names]


def test_no_import_cycles_even_through_imports_inside_functions():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for me, path in MODULES.items():
        for module, name in _from_imports(path):
            for target in (f"{module}.{name}", module):
                if target in MODULES and target != "calreport" and target != me:
                    graph[me].add(target)
                    break
    state: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for t in graph[m]:
            if state.get(t) == 1:
                pytest.fail("import cycle: " + " -> ".join([*trail[trail.index(t):], t])
                            if t in trail else f"import cycle through {t}")
            if t not in state:
                visit(t, [*trail, t])
        state[m] = 2

    for m in MODULES:
        if m not in state:
            visit(m, [m])


def test_no_private_names_imported_across_packages():
    found = set()
    for me, path in MODULES.items():
        for module, name in _from_imports(path):
            if (not name.startswith("_") or name.startswith("__")
                    or f"{module}.{name}" in MODULES or module not in MODULES):
                continue
            if _package(module) != _package(me):
                found.add((me, name))
    assert not found, sorted(found)


def _calreport_imports_in_functions(path: Path) -> list[ast.stmt]:
    """``import calreport...`` / ``from calreport... import`` statements in a function."""
    found: list[ast.stmt] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, ast.ImportFrom):
                if child.level or (child.module or "").split(".")[0] == "calreport":
                    found.append(child)
            elif in_function and isinstance(child, ast.Import):
                if any(a.name.split(".")[0] == "calreport" for a in child.names):
                    found.append(child)
            visit(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_imports_inside_functions_name_the_heavy_dependency_they_defer():
    # a calreport import sits inside a function only to keep a heavy or optional
    # dependency out of ``import calreport``; its line (or the one before) says which
    bare = []
    for path in FILES:
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in _calreport_imports_in_functions(path):
            around = lines[max(node.lineno - 2, 0):node.end_lineno]
            if not any(_LAZY_NOTE.search(line) for line in around):
                bare.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not bare, ("imports inside functions without '# lazy: <one of "
                      f"{', '.join(HEAVY)}>': {bare}")


def test_import_calreport_loads_no_heavy_dependency():
    code = ("import sys, calreport\n"
            f"heavy = {HEAVY!r}\n"
            "print(sorted(m for m in sys.modules if m in heavy or m.startswith(\n"
            "    tuple(h + '.' for h in heavy))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout
