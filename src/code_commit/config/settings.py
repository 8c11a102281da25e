"""Effective settings: defaults < agent-config/config.toml < CODE_COMMIT_* environment < flags.

Every setting is a field of `Settings`, documented in its metadata; `load_settings` records
where each value came from so `code-commit config` can show it.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from code_commit.credentials import KEY_ENV, KEY_FILES
from code_commit.errors import SetupError

CONFIG_DIR = "agent-config"
CONFIG_FILE = "config.toml"
ENV_PREFIX = "CODE_COMMIT_"

# The one place the default model is named: a current Sonnet-class id the installed SDK knows.
DEFAULT_MODEL = "claude-sonnet-5-5"

MIN_KEY_LENGTH = 8
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PROMPT_ORDERS = ("spec", "cache")
SANDBOX_MODES = ("auto", "require", "off")  # builds/sandbox.py: what each means
TESTS_MODES = ("protect", "report", "free")  # guard/weakening: what an answer or a build may do to the tests
TEST_PATTERNS_MODES = (
    "extend",
    "replace",
)  # guard/weakening/paths.py: test_patterns add to the defaults or replace them
MIN_ROLLUP_BUDGET = 1000  # tokens: below this not even a small project's main files fit
# bytes: the rollup reads a file whole to judge it, and a model's whole context is a few MiB; a sparse
# file of 100 GiB under a bigger cap would be read into memory.
MAX_ROLLUP_FILE_SIZE = 64 * 2**20
# Tables of config.toml that are not settings: their own modules read and check them.
CONFIG_TABLES = ("models",)  # llm/catalog.py: model prices and context windows


# `flag`: the commands a setting's flag counts for when given before them; "run" is `code-commit`
# itself, and `config` honours every setting's flag, as it shows every setting. A setting with no
# flag is set in config.toml or the environment only. cli/flags.py makes the typer options from this.
RUN = ("run",)
RUN_AND_APPLY = ("run", "apply")


def _setting(default: Any, doc: str, example: Any = None, flag: tuple[str, ...] = ()) -> Any:
    # `example`: shown in the config template for a setting that is unset (None) by default.
    metadata = {"doc": doc, "example": example, "flag": flag}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class Settings:
    provider: str = _setting(
        "anthropic", "Model provider: anthropic, or openai (any OpenAI-compatible server).", flag=RUN
    )
    model: str = _setting(DEFAULT_MODEL, "Model id sent to the provider.", flag=RUN)
    max_tokens: int = _setting(32000, "Output-token limit of one model call.", flag=RUN)
    base_url: str | None = _setting(
        None,
        "Endpoint of the provider; unset means ANTHROPIC_BASE_URL (OPENAI_BASE_URL for openai) or the "
        "provider's default.",
        "https://api.anthropic.com",
        flag=RUN,
    )
    max_repairs: int = _setting(3, "Repair queries after the initial one (0 to 3).")
    build_timeout: float = _setting(
        1800.0, "Seconds before build.sh's whole process group is killed.", flag=RUN_AND_APPLY
    )
    build_output_cap: int = _setting(
        60000, "Characters of build output (or of a refused answer's reasons) passed to a repair prompt."
    )
    build_log_cap: int = _setting(
        20_000_000,
        "Characters of build output kept in each NN-build.txt: its first and last halves, with a marker for the cut.",
    )
    max_answer_bytes: int | None = _setting(
        None,
        "Bytes of answer text read at most, continuations included; past it the answer is refused. Unset means "
        "max_tokens x 16 x 4 (the first request and its 3 continuations).",
        2_048_000,
    )
    max_failed_pairs: int = _setting(
        10, "Failing search/replace pairs after which the rest of an answer's pairs are not tried (it is refused)."
    )
    match_work: int = _setting(
        5_000_000,
        "Lines of files matched at most for one answer (each search/replace pair costs a pass over its file); "
        "past it the answer is refused.",
    )
    review: bool = _setting(
        False, "Ask at the terminal which hunks of each answer to apply, before anything is written.", flag=RUN
    )
    diff: bool = _setting(False, "Print the unified diff of what each attempt applies (on stderr).", flag=RUN)
    prompt_order: str = _setting(
        "spec",
        "spec: the default section order. cache: [system prompts][query][codebase] first, so repair calls "
        "read them from the prompt cache.",
        flag=RUN,
    )
    max_cost: float | None = _setting(
        None, "Budget in US dollars: the run stops (exit 3) before a request that could go over it.", 5.0, flag=RUN
    )
    retry_attempts: int = _setting(10, "Attempts at one model request, the first included, before exit 3.")
    connect_attempts: int = _setting(
        3,
        "Attempts at reaching the model service while the connection is refused, its name does not resolve "
        "or it does not answer the connection, before exit 3 (a wrong endpoint costs seconds, not minutes).",
    )
    retry_time: float = _setting(300.0, "Seconds one model request may spend failing and retrying before exit 3.")
    retry_wait_cap: float = _setting(60.0, "Longest single wait between attempts, even if the service asks for more.")
    request_timeout: float = _setting(120.0, "Seconds without any data from the model service before an attempt fails.")
    build_linger: float = _setting(
        2.0, "Seconds build.sh's background children may keep its output open after it exits; then they are killed."
    )
    timeout: float | None = _setting(
        None,
        "Seconds the whole run may take, lock wait included (exit 5); 0 means no limit; unset means no limit "
        "at a terminal, and unattended_timeout without one.",
        3600,
        flag=RUN_AND_APPLY,
    )
    unattended_timeout: float = _setting(
        7200.0,
        "The run's time limit when timeout is unset and standard input or output is not a terminal "
        "(cron, CI) or the CI variable is set; 0 means no limit.",
    )
    wait_lock: float = _setting(
        0.0, "Seconds to wait for another run's lock; 0 gives up at once (exit 4).", flag=("run", "apply", "recover")
    )
    keep_runs: int = _setting(50, "Run folders kept under agent-config/logs/, newest first; 0 keeps them all.")
    protected_patterns: list[str] = _setting(  # noqa: RUF009 - _setting gives a list a default_factory
        [],
        "Extra gitignore-style patterns the model may never write or delete (matched ignoring case).",
        [".github/workflows/**", ".env*"],
    )
    redact_env: list[str] = _setting(  # noqa: RUF009 - _setting gives a list a default_factory
        [],
        "More environment variables whose values are censored everywhere, besides the provider keys and "
        "variables named like *_TOKEN, *_SECRET, *_KEY or *PASSWORD* (SECURITY.md: secrets).",
        ["DATABASE_URL"],
    )
    allow_delete: bool = _setting(True, "Whether an answer may delete files; false refuses every ^^^delete block.")
    tests: str = _setting(
        "protect",
        "What an answer or a build may do to the tests. protect: weakening them (a test file deleted, a test "
        "removed, skipped or emptied of its assertions, a hook or runner setting that changes what runs) refuses "
        "the answer, and fails the run if the build did it. report: allowed, and named in the console, run.log "
        "and the record. free: not checked.",
        flag=RUN_AND_APPLY,
    )
    test_patterns: list[str] = _setting(  # noqa: RUF009 - _setting gives a list a default_factory
        [],
        "Gitignore-style patterns of more files that are tests or test configuration (matched case-sensitively, "
        "`!` drops one), added to the built-in ones or, with test_patterns_mode = replace, instead of them.",
        ["qa/**", "Makefile"],
    )
    test_patterns_mode: str = _setting(
        "extend", "extend: test_patterns add to the built-in test patterns; replace: they are the only ones."
    )
    edit_threshold_lines: int = _setting(
        500, "The prompt asks for edit blocks, not whole files, for files over this many lines."
    )
    edit_threshold_bytes: int = _setting(
        15000, "The prompt asks for edit blocks, not whole files, for files over this many bytes."
    )
    rollup_budget: int = _setting(
        100_000,
        "code-commit rollup: estimated tokens the rollup may take (0: no limit). When not everything fits, "
        "source comes first, then tests, then config, docs and data; the rest is listed by name and size.",
    )
    rollup_max_file_size: int = _setting(256 * 1024, "code-commit rollup: files over this many bytes are left out.")
    rollup_exclude: list[str] = _setting(  # noqa: RUF009
        [], "code-commit rollup: gitignore-style patterns of files to leave out.", ["tests/data/", "*.csv"]
    )
    rollup_include: list[str] = _setting(  # noqa: RUF009
        [],
        "code-commit rollup: gitignore-style patterns of files to include although a default rule leaves "
        "them out (lock files, generated files, config, docs and data over their share); they come first "
        "under the budget.",
        ["uv.lock", "docs/**"],
    )
    sandbox: str = _setting(
        "auto",
        "Where build.sh runs: auto (in bubblewrap when it works here, else unsandboxed with a warning), "
        "require (no working sandbox is a setup error, exit 2: for cron and CI), off (with your full rights).",
        flag=RUN_AND_APPLY,
    )
    sandbox_network: bool = _setting(
        False, "Whether a sandboxed build may use the network (to fetch dependencies).", flag=RUN_AND_APPLY
    )
    sandbox_writable: list[str] = _setting(  # noqa: RUF009 - _setting gives a list a default_factory
        [],
        "Extra paths a sandboxed build may write (absolute or ~/...), outside the project: caches.",
        ["~/.cache/pip", "~/.npm"],
        flag=RUN_AND_APPLY,
    )


SETTING_NAMES = tuple(f.name for f in dataclasses.fields(Settings))
ANSWER_BYTES_PER_TOKEN = 16  # generous: a token is about 4 bytes of text


def run_time_limit(settings: Settings, unattended: bool) -> tuple[float | None, str]:
    """The run's time limit and the setting it comes from: timeout if set (0: none); unset, none at a
    terminal and unattended_timeout (0: none) without one, so a cron job or CI run cannot hang for ever."""
    if settings.timeout is not None:
        return settings.timeout or None, "--timeout"
    if unattended and settings.unattended_timeout:
        return settings.unattended_timeout, "unattended_timeout: no terminal; --timeout 0 turns it off"
    return None, "--timeout"


def answer_byte_cap(settings: Settings, continuations: int) -> int:
    """The answer text read at most: max_answer_bytes, or enough for max_tokens in every request of
    an answer (the first and its `continuations`), at a generous size per token."""
    if settings.max_answer_bytes is not None:
        return settings.max_answer_bytes
    return settings.max_tokens * ANSWER_BYTES_PER_TOKEN * (1 + continuations)


def flag_name(name: str) -> str:
    """A setting's flag as typed: --build-timeout."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class FlagValue:
    setting: str
    value: Any
    flag: str  # as the user typed it, for messages: --build-timeout, or rollup's --budget


@dataclass(frozen=True)
class Flags:
    """The settings given as flags: load_settings' top layer. Holds only the flags given."""

    given: tuple[FlagValue, ...] = ()

    def __post_init__(self) -> None:
        unknown = [item.setting for item in self.given if item.setting not in SETTING_NAMES]
        if unknown:  # a bug in a command, not a user's mistake
            raise ValueError(f"not settings: {', '.join(unknown)}")

    @classmethod
    def of(cls, **values: Any) -> Flags:
        """Setting name -> value as the command line parsed it; None (or an empty repeatable flag)
        means not given."""
        return cls(tuple(FlagValue(name, value, flag_name(name)) for name, value in values.items() if _given(value)))


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, list | tuple) and not value)


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    sources: dict[str, str]  # setting name -> "default" | "config file" | "env CODE_COMMIT_X" | "flag"


def config_path(root: Path) -> Path:
    return root / CONFIG_DIR / CONFIG_FILE


def load_settings(root: Path, env: Mapping[str, str] | None = None, flags: Flags | None = None) -> LoadedSettings:
    """Layer the sources; raise SetupError naming the source of any bad value."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    sources = {name: "default" for name in SETTING_NAMES}
    hints = typing.get_type_hints(Settings)

    path = config_path(root)
    raw = _read_setup_file(path, "the settings file")
    if raw is not None:
        import tomllib  # only when there is a file to read: it costs ~10 ms of every start

        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SetupError(f"{path}: not valid TOML: {exc}. Fix the file or delete it.") from exc
        for name, value in data.items():
            if name in CONFIG_TABLES:
                continue
            if name not in hints:
                raise SetupError(f"{path}: unknown setting {name!r}. Known settings: {', '.join(SETTING_NAMES)}.")
            values[name] = _coerce(name, value, hints[name], f"{path}")
            sources[name] = "config file"

    for name in SETTING_NAMES:
        var = ENV_PREFIX + name.upper()
        if var in env:
            values[name] = _coerce(name, env[var], hints[name], f"environment variable {var}", from_text=True)
            sources[name] = f"env {var}"

    for item in (flags or Flags()).given:
        values[item.setting] = _coerce(item.setting, item.value, hints[item.setting], f"flag {item.flag}")
        sources[item.setting] = "flag"

    settings = Settings(**values)
    _validate(settings, sources, root)
    return LoadedSettings(settings, sources)


def _coerce(name: str, value: Any, hint: Any, where: str, from_text: bool = False) -> Any:
    optional = isinstance(hint, types.UnionType) and type(None) in typing.get_args(hint)
    base = next((a for a in typing.get_args(hint) if a is not type(None)), hint) if optional else hint
    if optional and (value is None or (from_text and value == "")):
        return None
    try:
        if typing.get_origin(base) is list:
            if from_text:
                return [part.strip() for part in value.split(",") if part.strip()]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError("expected a list of strings")
            return list(value)
        if base is bool:
            if isinstance(value, bool):
                return value
            if from_text and value.strip().lower() in ("1", "true", "yes", "on"):
                return True
            if from_text and value.strip().lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError("expected true or false")
        if base is int:
            if isinstance(value, bool) or not isinstance(value, int | str) or not _is_whole(value):
                raise ValueError(f"expected a whole number, like {_default_of(name)}")
            return int(value)
        if base is float:
            if isinstance(value, bool) or not isinstance(value, int | float | str) or not _is_number(value):
                raise ValueError(f"expected a number, like {_default_of(name)}")
            return float(value)
        if base is str:
            if not isinstance(value, str):
                raise ValueError("expected a string")
            return value
    except ValueError as exc:
        shown = repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else value
        raise SetupError(f"{where}: bad value {shown} for {name}: {exc}.") from exc
    raise AssertionError(f"unhandled setting type {hint!r}")


def _is_whole(value: int | str) -> bool:
    """An int, or text that int() reads in plain words: digits with an optional sign (Python's own
    error text, `invalid literal for int() with base 10`, is no message for a person)."""
    return isinstance(value, int) or value.strip().lstrip("+-").isdigit()


def _is_number(value: float | str) -> bool:
    if not isinstance(value, str):
        return True
    try:
        float(value)
    except ValueError:
        return False
    return True


def _default_of(name: str) -> Any:
    """The setting's default (or, for one unset by default, its example): a value that reads."""
    setting = next(f for f in dataclasses.fields(Settings) if f.name == name)
    return setting.default if setting.default is not None else setting.metadata.get("example")


def _validate(settings: Settings, sources: dict[str, str], root: Path) -> None:
    def bad(name: str, why: str) -> SetupError:
        return SetupError(f"setting {name} (from {sources[name]}): {why}.")

    for name in ("build_timeout", "build_linger", "timeout", "unattended_timeout", "wait_lock"):
        value = getattr(settings, name)
        if value is not None and not math.isfinite(value):  # "nan" and "inf" parse as floats
            raise bad(name, "must be a finite number of seconds")
    if settings.provider not in KEY_ENV:
        raise bad("provider", f"must be one of {', '.join(KEY_ENV)}, not {settings.provider!r}")
    if settings.max_tokens < 1:
        raise bad("max_tokens", "must be at least 1")
    if not 0 <= settings.max_repairs <= 3:
        raise bad("max_repairs", "must be between 0 and 3")
    if settings.build_timeout <= 0:
        raise bad("build_timeout", "must be positive")
    if settings.build_output_cap < 1000:
        raise bad("build_output_cap", "must be at least 1000 characters")
    if settings.provider == "openai" and sources["model"] == "default":
        raise bad(
            "provider",
            f"openai needs a model: the default, {DEFAULT_MODEL}, is an Anthropic model; "
            "name the server's model with --model (or model in agent-config/config.toml)",
        )
    if settings.prompt_order not in PROMPT_ORDERS:
        raise bad("prompt_order", f"must be one of {', '.join(PROMPT_ORDERS)}, not {settings.prompt_order!r}")
    if settings.max_cost is not None and settings.max_cost <= 0:
        raise bad("max_cost", "must be a positive number of US dollars")
    if settings.retry_attempts < 1:
        raise bad("retry_attempts", "must be at least 1")
    if settings.connect_attempts < 1:
        raise bad("connect_attempts", "must be at least 1")
    for name in ("retry_time", "request_timeout"):
        if getattr(settings, name) <= 0:
            raise bad(name, "must be positive")
    if settings.retry_wait_cap < 0:
        raise bad("retry_wait_cap", "must be at least 0")
    if settings.build_linger < 0:
        raise bad("build_linger", "must be 0 or more")
    if settings.timeout is not None and settings.timeout < 0:
        raise bad("timeout", "must be 0 (no limit) or a positive number of seconds")
    if settings.unattended_timeout < 0:
        raise bad("unattended_timeout", "must be 0 (no limit) or a positive number of seconds")
    if settings.build_log_cap < 100_000:
        raise bad("build_log_cap", "must be at least 100000 characters")
    if settings.max_answer_bytes is not None and settings.max_answer_bytes < 1000:
        raise bad("max_answer_bytes", "must be at least 1000 bytes (leave it unset for the default)")
    if settings.max_failed_pairs < 1:
        raise bad("max_failed_pairs", "must be at least 1")
    if settings.match_work < 1000:
        raise bad("match_work", "must be at least 1000 lines")
    if settings.wait_lock < 0:
        raise bad("wait_lock", "must be 0 or more")
    if settings.keep_runs < 0:
        raise bad("keep_runs", "must be 0 (keep all) or more")
    if settings.edit_threshold_lines < 1:
        raise bad("edit_threshold_lines", "must be at least 1")
    if settings.edit_threshold_bytes < 1:
        raise bad("edit_threshold_bytes", "must be at least 1")
    for name in settings.redact_env:
        if not ENV_NAME.fullmatch(name):
            raise bad("redact_env", f"{name!r} is not an environment variable name")
    if settings.tests not in TESTS_MODES:
        raise bad("tests", f"must be one of {', '.join(TESTS_MODES)}, not {settings.tests!r}")
    if settings.test_patterns_mode not in TEST_PATTERNS_MODES:
        modes = ", ".join(TEST_PATTERNS_MODES)
        raise bad("test_patterns_mode", f"must be one of {modes}, not {settings.test_patterns_mode!r}")
    if settings.test_patterns_mode == "replace" and not settings.test_patterns:
        raise bad("test_patterns_mode", "replace needs test_patterns: with none, no file would be a test")
    if settings.sandbox not in SANDBOX_MODES:
        raise bad("sandbox", f"must be one of {', '.join(SANDBOX_MODES)}, not {settings.sandbox!r}")
    if settings.sandbox_writable:
        from code_commit.config.writable import writable_problem
    for path in settings.sandbox_writable:
        problem = writable_problem(path, root, settings.sandbox_writable)
        if problem:
            raise bad("sandbox_writable", problem)
    if settings.rollup_budget != 0 and settings.rollup_budget < MIN_ROLLUP_BUDGET:
        raise bad("rollup_budget", f"must be 0 (no limit) or at least {MIN_ROLLUP_BUDGET:,} tokens")
    if settings.rollup_max_file_size < 0:
        raise bad("rollup_max_file_size", "must be 0 or more bytes")
    if settings.rollup_max_file_size > MAX_ROLLUP_FILE_SIZE:
        raise bad("rollup_max_file_size", f"must be at most {MAX_ROLLUP_FILE_SIZE:,} bytes (64 MiB)")
    for name in ("protected_patterns", "rollup_exclude", "rollup_include", "test_patterns"):
        patterns = getattr(settings, name)
        if patterns:
            from code_commit.git.ignore import pattern_problem  # no git call: only the patterns' spelling is checked
        for pattern in patterns:
            problem = pattern_problem(pattern)
            if problem:
                raise bad(name, f"the pattern {pattern!r} can never match anything: {problem}")


@dataclass(frozen=True)
class ApiKey:
    value: str
    source: str  # where it came from, for messages: never the key itself

    def __repr__(self) -> str:  # keeps the key out of tracebacks and debug output
        return f"ApiKey(source={self.source!r})"


def key_is_optional(settings: Settings, env: Mapping[str, str]) -> bool:
    """Only an OpenAI-compatible server of the user's choosing (llama.cpp, Ollama) may need no key;
    the default endpoint of either provider always does."""
    return settings.provider == "openai" and bool(settings.base_url or env.get("OPENAI_BASE_URL"))


def resolve_api_key(root: Path, provider: str, env: Mapping[str, str] | None = None, optional: bool = False) -> ApiKey:
    """The key from the provider's environment variable, else from its file in agent-config/.

    optional: with neither, return an empty key (sent as no key at all) instead of failing."""
    env = os.environ if env is None else env
    var = KEY_ENV[provider]
    key_file = root / CONFIG_DIR / KEY_FILES[provider]
    raw = None if env.get(var, "").strip() else _read_setup_file(key_file, "the key file")
    if env.get(var, "").strip():
        key = ApiKey(env[var].strip(), f"environment variable {var}")
    elif raw is not None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SetupError(f"cannot read the key file {key_file}: {exc}") from exc
        key = ApiKey(text.strip(), f"key file {CONFIG_DIR}/{KEY_FILES[provider]}")
        if not key.value:
            raise SetupError(f"the key file {key_file} is empty. Put your {provider} API key in it.")
    elif optional:
        return ApiKey("", f"no key configured (neither {var} nor {CONFIG_DIR}/{KEY_FILES[provider]})")
    else:
        raise SetupError(
            f"no API key configured for {provider}. Set {var}, or write the key to "
            f"{CONFIG_DIR}/{KEY_FILES[provider]} (agent-config/ is git-ignored)."
        )
    if len(key.value) < MIN_KEY_LENGTH or any(ch.isspace() or ord(ch) < 32 for ch in key.value):
        raise SetupError(
            f"the API key from {key.source} does not look like a key: it must be at least "
            f"{MIN_KEY_LENGTH} characters with no spaces or control characters."
        )
    return key


def _read_setup_file(path: Path, what: str) -> bytes | None:
    """A setup file's bytes, None if there is none; SetupError naming the path for anything but a
    regular file (a FIFO there would block a plain open forever) or a file that cannot be read."""
    from code_commit.files.regular import read_regular

    try:
        return read_regular(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise SetupError(f"cannot read {what} {path}: {exc.strerror}; replace it with a regular file.") from exc
