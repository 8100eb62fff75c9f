"""Register the ``calib`` accessors of pandas, Dask and Polars, cheaply.

``import calreport`` imports none of these libraries.  For pandas, ``DataFrame.calib``
and ``DataFrameGroupBy.calib`` are descriptors that import the accessor module on
first use, so importing the package costs milliseconds and ``calreport --help``
answers before pandas is loaded.  For each library: if it is already imported, its
accessor is registered at once; otherwise a small import hook registers it right
after the library is first imported.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from typing import Any

__all__ = ["install"]


class _PandasAccessor:
    """``.calib`` of pandas objects: the accessor class of :mod:`calreport.accessor`,
    imported on first use; an instance per DataFrame (cached on it, as pandas caches
    its accessors) or per GroupBy (pandas has no GroupBy accessor API)."""

    def __init__(self, name: str, cache: bool) -> None:
        self._name, self._cache = name, cache

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        from calreport import accessor  # lazy: pandas (and the whole metric stack)

        cls = getattr(accessor, self._name)
        if obj is None:
            return cls
        acc = cls(obj)
        if self._cache:
            object.__setattr__(obj, "calib", acc)
        return acc


def _register_pandas() -> None:
    import pandas as pd

    try:
        from pandas.api.typing import DataFrameGroupBy
    except ImportError:  # pragma: no cover - pandas < 2.1
        from pandas.core.groupby import DataFrameGroupBy
    pd.DataFrame.calib = _PandasAccessor("CalibAccessor", cache=True)
    DataFrameGroupBy.calib = _PandasAccessor("GroupByCalibAccessor", cache=False)


def _register_module(target: str) -> Any:
    return lambda: importlib.import_module(target).register()


#: module whose import triggers the registration -> what registers
_TARGETS = {"pandas": _register_pandas,
            "dask.dataframe": _register_module("calreport.dask"),
            "polars": _register_module("calreport.polars")}


class _Loader(importlib.abc.Loader):
    def __init__(self, loader: Any, name: str) -> None:
        self._loader, self._name = loader, name

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _TARGETS[self._name]()


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
    """Hook the libraries not imported yet, then register for those already imported.

    The hook goes first: registering for one library may import another (the Polars
    namespace imports pandas), which must then register too.
    """
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    for module, register in _TARGETS.items():
        if module in sys.modules:
            register()
