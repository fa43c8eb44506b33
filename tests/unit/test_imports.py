"""The import rule (docs/architecture.md), checked over the source with ``ast``.

- The core (``atma/`` except its faces) imports no host (``adapters``), no ``eval``, no
  ``training`` and no face (``atma.cli``, ``atma.demo``), not even inside a function.
- Defaults are built in one place, ``atma.factory``; only the orchestrator (``atma/overlay.py``)
  and the faces call it, never the rest of the core.
- The faces (``atma/cli.py``, ``atma/__main__.py``, ``atma/demo.py``) reach hosts only through
  ``adapters.registry`` and the benchmarks only through ``eval.cli``.
- In ``atma/``, heavy libraries (torch, sentence-transformers, transformers, the llama.cpp
  bindings, ...) are imported at module top only by the backend modules; anywhere else only
  inside a function, so that ``import atma`` stays light. (``training`` and the host
  adapters sit behind their extras and may import their libraries at the top.)
- ``adapters`` never imports ``eval`` or ``training``; ``training`` never imports ``eval``
  or ``adapters`` (training never reads the benchmark; evaluation reads training's output).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Modules of the overlay package that face the user and may pick a host or a benchmark by name.
FACES = {"atma/cli.py", "atma/__main__.py", "atma/demo.py"}
FACE_MAY_IMPORT = {"adapters.registry", "eval.cli"}
#: Modules that wrap a model runtime: the only ones that may import one at module top.
BACKENDS = {"atma/embed.py", "atma/sentry_encoder.py", "atma/verdict.py"}
BACKEND_DIRS = ("atma/llm/",)
#: The modules that may build defaults through atma.factory.
FACTORY_USERS = {"atma/overlay.py", *FACES}
HEAVY = {"torch", "sentence_transformers", "transformers", "xllamacpp", "llama_cpp", "peft", "trl",
         "accelerate", "bitsandbytes", "datasets", "graphiti_core", "kuzu", "agentic_memory", "httpx",
         "ollama", "matplotlib", "nltk"}
#: For each top-level folder, the project packages it must never import.
NEVER = {"atma": {"adapters", "eval", "training"}, "adapters": {"eval", "training"},
         "training": {"eval", "adapters"}}


def _imports(tree: ast.AST, path: str) -> list[tuple[str, tuple[str, ...], int, bool]]:
    """``(module, names, line, at_top)`` for every import statement, relative ones resolved against
    ``path``. ``names``: the module and, for ``from m import n``, ``m.n`` too (``n`` may be a
    submodule). ``at_top``: not inside a function."""
    package = path.removesuffix(".py").split("/")[:-1]
    out: list[tuple[str, tuple[str, ...], int, bool]] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                out.extend((a.name, (a.name,), child.lineno, not in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = ".".join([*package[: len(package) - child.level + 1], *([child.module] if child.module else [])])
                else:
                    base = child.module or ""
                names = (base, *(f"{base}.{a.name}" for a in child.names))
                out.append((base, names, child.lineno, not in_function))
            walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    walk(tree, False)
    return out


def violations(path: str, source: str) -> list[str]:
    """Every import in ``source`` (the file at ``path``, relative to the repository) that breaks the rule."""
    folder = path.split("/", 1)[0]
    face, backend = path in FACES, path in BACKENDS or path.startswith(BACKEND_DIRS)
    bad = []
    for module, names, line, at_top in _imports(ast.parse(source), path):
        top = module.split(".")[0]
        where = f"{path}:{line} imports {module}"
        if face and top in ("adapters", "eval"):
            if not FACE_MAY_IMPORT.intersection(names):
                bad.append(f"{where} (a face reaches hosts through adapters.registry, benchmarks through eval.cli)")
        elif top in NEVER.get(folder, ()):
            bad.append(f"{where} ({folder} never imports {top})")
        if folder == "atma" and not face and any(n.startswith(("atma.cli", "atma.demo", "atma.__main__")) for n in names):
            bad.append(f"{where} (the core never imports a face)")
        if "atma.factory" in names and folder in ("atma", "adapters", "training") and path not in FACTORY_USERS:
            bad.append(f"{where} (only the orchestrator and the faces build defaults)")
        if folder == "atma" and top in HEAVY and at_top and not backend:
            bad.append(f"{where} at module top (import it inside the function that needs it)")
    return bad


def _sources() -> list[Path]:
    return sorted(p for d in ("atma", "adapters", "training") for p in (ROOT / d).rglob("*.py"))


def test_the_source_keeps_the_import_rule() -> None:
    files = _sources()
    assert len(files) > 30 and any(p.name == "overlay.py" for p in files)
    bad = [v for p in files for v in violations(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))]
    assert bad == []


def test_backends_named_in_the_rule_exist() -> None:
    for path in [*BACKENDS, *FACES, *BACKEND_DIRS]:
        assert (ROOT / path).exists(), path


@pytest.mark.parametrize("path, source, reason", [
    ("atma/packet.py", "from adapters.builtin import BuiltinHost\n", "atma never imports adapters"),
    ("atma/overlay.py", "def f():\n    import eval.stream\n", "atma never imports eval"),
    ("atma/bank.py", "from training import sentry_data\n", "atma never imports training"),
    ("atma/overlay.py", "from atma.cli import main\n", "the core never imports a face"),
    ("atma/packet.py", "import torch\n", "at module top"),
    ("atma/sentry.py", "import torch\n", "at module top"),  # the routing rule is core, not a backend
    ("atma/judging.py", "def f():\n    from .factory import default_gate\n", "only the orchestrator"),
    ("atma/packet.py", "from . import cli\n", "the core never imports a face"),
    ("atma/llm/spec.py", "from ..factory import default_llm\n", "only the orchestrator"),
    ("adapters/builtin.py", "from atma.factory import default_embedder\n", "only the orchestrator"),
    ("atma/judging.py", "from sentence_transformers import SentenceTransformer\n", "at module top"),
    ("atma/profiler.py", "if True:\n    import transformers\n", "at module top"),
    ("atma/cli.py", "def f():\n    from adapters.builtin import BuiltinHost\n", "through adapters.registry"),
    ("adapters/builtin.py", "from eval import grading\n", "adapters never imports eval"),
    ("training/sentry.py", "from eval.stream_format import Scenario\n", "training never imports eval"),
])
def test_a_bad_import_is_reported(path: str, source: str, reason: str) -> None:
    (found,) = violations(path, source)
    assert reason in found and path in found


@pytest.mark.parametrize("path, source", [
    ("atma/packet.py", "def f():\n    import torch\n"),  # lazy: allowed anywhere
    ("atma/sentry_encoder.py", "import torch\n"),  # a backend module
    ("atma/llm/llamacpp.py", "import xllamacpp\n"),
    ("atma/cli.py", "def f():\n    from adapters.registry import make_host\n"),
    ("eval/stream.py", "from adapters.builtin import BuiltinHost\nfrom training.sentry import EvalPairs\n"),
    ("training/judge_sft.py", "import torch\nfrom trl import SFTTrainer\n"),
    ("adapters/amem.py", "from atma.protocols import Host\n"),
    ("atma/overlay.py", "def f():\n    from atma.factory import default_llm\n"),
    ("eval/stream.py", "from atma.factory import default_llm\n"),
])
def test_allowed_imports_pass(path: str, source: str) -> None:
    assert violations(path, source) == []
