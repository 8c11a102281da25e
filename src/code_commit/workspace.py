"""The project code-commit runs in: its inputs and the setup checks made before any model call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .errors import SetupError
from .settings import CONFIG_DIR, ApiKey, Settings, key_is_optional, resolve_api_key

QUERY_FILE = f"{CONFIG_DIR}/query.txt"
ROLLUP_FILE = f"{CONFIG_DIR}/codeRollup.txt"
IGNORE_LINES = ("/agent-config", "/agent-config/")


@dataclass(frozen=True)
class Workspace:
    root: Path
    query: str
    codebase: str

    @property
    def config_dir(self) -> Path:
        return self.root / CONFIG_DIR


def check_setup(root: Path, settings: Settings, env: Mapping[str, str]) -> tuple[Workspace, ApiKey]:
    """Everything a run needs before the first model call; one SetupError lists every problem."""
    problems: list[str] = []
    workspace = key = None
    try:
        workspace = open_workspace(root)
    except SetupError as exc:
        problems.append(str(exc))
    try:
        key = resolve_api_key(root, settings.provider, env, optional=key_is_optional(settings, env))
    except SetupError as exc:
        problems.append(str(exc))
    if workspace is None or key is None:
        raise SetupError("\n".join(problems))
    return workspace, key


def open_workspace(root: Path) -> Workspace:
    """Read the inputs; raise one SetupError listing every problem found, with its fix."""
    problems: list[str] = []
    query = _read_input(root, QUERY_FILE, "write the change you want in it", problems)
    codebase = _read_input(root, ROLLUP_FILE, "generate it with ./codeRollup.sh", problems)
    problems.extend(_gitignore_problems(root))
    if not (root / "build.sh").is_file():
        problems.append("build.sh is missing: code-commit judges every change by running ./build.sh; create it.")
    if problems:
        raise SetupError("\n".join(problems))
    assert query is not None and codebase is not None
    return Workspace(root, query, codebase)


def _read_input(root: Path, name: str, fix: str, problems: list[str]) -> str | None:
    try:
        text = (root / name).read_text(encoding="utf-8")
    except FileNotFoundError:
        problems.append(f"{name} is missing: {fix}.")
        return None
    except IsADirectoryError:
        problems.append(f"{name} is a directory, not a file: {fix}.")
        return None
    except UnicodeDecodeError:
        problems.append(f"{name} is not UTF-8 text: {fix}.")
        return None
    if not text.strip():
        problems.append(f"{name} is empty: {fix}.")
        return None
    return text


def _gitignore_problems(root: Path) -> list[str]:
    fix = "add a line /agent-config so that keys and logs under agent-config/ are never committed"
    try:
        lines = (root / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return [f".gitignore is missing: create it and {fix}."]
    except OSError as exc:
        return [f".gitignore cannot be read ({exc.strerror}): {fix}."]
    if not any(line.strip() in IGNORE_LINES for line in lines):
        return [f".gitignore has no /agent-config line: {fix}."]
    return []
