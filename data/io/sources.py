"""Where data files come from: a local directory, or their public home with a checksum.

Resolution order for a dataset's directory: the ``path`` argument, then
``$ACCEPTABILITY_DATA_DIR/<dataset>``, then a checksummed download (pooch) into the
cache ``$ACCEPTABILITY_CACHE_DIR`` (default: the OS cache dir). The registry files in
``data/registry/`` list, per dataset, each file's local path, sha256 and public URL.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from importlib import resources
from pathlib import Path

from acceptability.data.errors import DataError
from acceptability.data.io.folders import private_folder

DATA_DIR_ENV = "ACCEPTABILITY_DATA_DIR"
CACHE_DIR_ENV = "ACCEPTABILITY_CACHE_DIR"


@cache
def registry(dataset: str) -> dict[str, tuple[str, str]]:
    """``{relative path: (checksum, url)}`` for a dataset's files."""
    try:
        text = resources.files("acceptability.data").joinpath("registry", f"{dataset}.txt").read_text()
    except FileNotFoundError:
        known = sorted(
            p.name.removesuffix(".txt")
            for p in resources.files("acceptability.data").joinpath("registry").iterdir()
        )
        raise DataError(f"unknown dataset {dataset!r}", fix=f"use one of {known}") from None
    entries = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            rel, checksum, url = line.split()
            entries[rel] = (checksum, url)
    return entries


def registered_names(dataset: str, folder: str, suffix: str) -> list[str]:
    """The sorted names of ``dataset``'s registered files in ``folder``, less ``suffix``."""
    prefix = f"{folder}/"
    return sorted(p.removeprefix(prefix).removesuffix(suffix)
                  for p in registry(dataset) if p.startswith(prefix))


def dataset_dir(dataset: str, path: str | os.PathLike | None = None) -> Path | None:
    """The local directory for ``dataset``, or None when the files must be downloaded."""
    if path is not None:
        p = Path(path).expanduser()
        if not p.is_dir():
            raise DataError(
                f"data directory {str(p)!r} does not exist",
                source=dataset,
                fix="pass the folder that holds the dataset's files, or path=None to download",
            )
        return p
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        p = Path(env).expanduser() / dataset
        if p.is_dir():
            return p
    return None


def fetch(dataset: str, relpath: str, path: str | os.PathLike | None = None) -> Path:
    """Path to one file of ``dataset``: local if available, else downloaded and verified."""
    local = dataset_dir(dataset, path)
    if local is not None:
        f = local / relpath
        if not f.is_file():
            raise DataError(
                f"missing file {relpath!r} in {str(local)!r}",
                source=dataset,
                fix=f"put the {dataset} files there (see data/registry/{dataset}.txt), "
                "or unset the local directory to download them",
            )
        return f
    entries = registry(dataset)
    if relpath not in entries:
        raise DataError(f"{relpath!r} is not a registered file", source=dataset)
    checksum, url = entries[relpath]
    import pooch  # lazy: only needed for downloads

    root = Path(os.environ.get(CACHE_DIR_ENV) or pooch.os_cache("acceptability"))
    cache_dir = private_folder(root, "cache folder") / dataset  # the score cache's, too
    try:
        return Path(
            pooch.retrieve(url, known_hash=checksum, fname=relpath.replace("/", "__"),
                           path=cache_dir, progressbar=False)
        )
    except Exception as err:  # network errors come in many types; report one clear line
        raise DataError(
            f"could not download {relpath!r} from {url} ({type(err).__name__}; offline?)",
            source=dataset,
            fix=f"download it by hand and set {DATA_DIR_ENV} to the folder holding '{dataset}/'",
        ) from None


def source_folder(dataset: str, path: str | os.PathLike | None, cache: Path | None) -> str:
    """Where a dataset's files were read: its local folder, else ``cache`` (the folder
    the downloads went to)."""
    local = dataset_dir(dataset, path)
    return str(local if local is not None else cache)


def checksum(file: Path) -> str:
    """sha256 of a file, as recorded in a Dataset's provenance."""
    return "sha256:" + hashlib.sha256(file.read_bytes()).hexdigest()
