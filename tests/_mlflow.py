"""A fresh, empty MLflow SQLite tracking store for each test that needs one, copied from one made once
per process: making a store runs MLflow's schema migrations (3 to 6 s); copying its file takes a few
milliseconds and gives the same empty store."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path


@functools.cache
def _empty_store() -> Path:
    import mlflow

    folder = Path(tempfile.mkdtemp(prefix="loopmetric-mlflow-store-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "mlflow.db"
    mlflow.MlflowClient(tracking_uri=f"sqlite:///{path}").search_experiments()  # makes the store's tables
    return path


def sqlite_store(folder: Path) -> str:
    """The URI of a fresh, empty SQLite tracking store in `folder` (a file `mlflow.db`)."""
    path = folder / "mlflow.db"
    shutil.copyfile(_empty_store(), path)
    return f"sqlite:///{path}"
