"""Register the Dask and Polars accessors when those libraries are imported.

Neither is a dependency: ``import calreport`` never imports them.  If one is
already imported, its accessor is registered at once; otherwise a small import
hook registers it right after the library is first imported.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from typing import Any

__all__ = ["install"]

#: module whose import triggers the registration -> calreport module with register()
_TARGETS = {"dask.dataframe": "calreport.dask", "polars": "calreport.polars"}


def _register(module: str) -> None:
    importlib.import_module(_TARGETS[module]).register()


class _Loader(importlib.abc.Loader):
    def __init__(self, loader: Any, name: str) -> None:
        self._loader, self._name = loader, name

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _register(self._name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in _TARGETS:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            spec = getattr(finder, "find_spec", lambda *a: None)(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader, name)
                return spec
        return None


def install() -> None:
    """Register now for libraries already imported; hook the others."""
    for module in _TARGETS:
        if module in sys.modules:
            _register(module)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
