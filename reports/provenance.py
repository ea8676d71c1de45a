"""The reproducibility block: package and dependency versions, models, seeds, data
checksums and the command that made a report."""

from __future__ import annotations

import hashlib
import platform
from datetime import UTC, datetime
from importlib import metadata

import pandas as pd

DEPENDENCIES = ("numpy", "scipy", "pandas", "statsmodels", "glmm", "pingouin", "scikit-learn",
                "matplotlib", "seaborn", "jinja2", "pyarrow", "torch", "transformers", "gguf")
# Columns a scores table may carry that identify where a model's scores came from;
# scoring.score writes model_source: the weights' hash (a local folder, a GGUF file) or hub
# commit, and for causal LMs start_token (what the first token was conditioned on).
MODEL_ID_COLUMNS = ("method", "model_source", "start_token", "model_id", "revision",
                    "checkpoint")


def version(package: str) -> str:
    """Installed version of a distribution, or ``"not installed"``."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def frame_checksum(frame: pd.DataFrame) -> str:
    """sha256 of a table's content (row order and dtypes included)."""
    digest = hashlib.sha256(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return "sha256:" + digest.hexdigest()


def models(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per model with its id columns (method, revision ...) and sentence count."""
    cols = [c for c in MODEL_ID_COLUMNS if c in scores]
    agg = {c: (c, lambda s: ", ".join(sorted(map(str, s.dropna().unique())))) for c in cols}
    return scores.groupby("model", sort=False).agg(n_sentences=("sentence_id", "nunique"),
                                                   **agg).reset_index()


def provenance(dataset, scores: pd.DataFrame, seed: int, n_boot: int, command: str | None,
               extra: dict | None = None) -> dict:
    """Everything needed to rerun the analysis that made a report."""
    return {
        "created": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "command": command or "reports.analyse(...) from Python",
        "python": platform.python_version(),
        "acceptability": version("acceptability"),
        "dependencies": {d: version(d) for d in DEPENDENCIES},
        "dataset": {"name": dataset.name, "source": dataset.source,
                    "checksums": dict(dataset.checksums)},
        "scores_checksum": frame_checksum(scores),
        "models": models(scores).to_dict("records"),
        "seed": seed,
        "n_boot": n_boot,
        "settings": extra or {},
    }
