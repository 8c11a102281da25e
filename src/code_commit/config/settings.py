"""Effective settings: defaults < agent-config/config.toml < CODE_COMMIT_* environment < flags.

Every setting is a field of `Settings`, documented in its metadata; `load_settings` records
where each value came from so `code-commit config` can show it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE
from code_commit.credentials import CHILD_SCRUBBED_ENV
from code_commit.errors import SetupError
from code_commit.files.setup_files import read_setup_file
from code_commit.git.env import distrust
from code_commit.providers import PROVIDERS

if TYPE_CHECKING:
    from code_commit.config.sandbox_network import NetworkAccess

_CONFIG_FILE_BYTES = 1 << 20  # config.toml is read up to this much: a few KiB of settings
ENV_PREFIX = "CODE_COMMIT_"

MAX_CONTINUATIONS = 3  # requests that continue an answer cut off at max_tokens, after the first
_ANSWER_BYTES_PER_TOKEN = 16  # generous: a token is about 4 bytes of text

# The one place the default model is named: a current Sonnet-class id the installed SDK knows.
DEFAULT_MODEL = "claude-sonnet-5-5"

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PROMPT_ORDERS = ("spec", "cache")
_REPAIR_CONTEXTS = ("failure", "spec")
_EFFORTS = ("low", "medium", "high")
# The output limit of a model the model catalog (llm/models.toml) does not know, when max_tokens is unset:
# one every current model and most servers accept.
FALLBACK_MAX_TOKENS = 32_000
# The output limit counted at most for the default answer cap: 32,000 x 16 bytes (512,000 bytes a
# request) hold a 128,000-token request of text at about 4 bytes a token, so the cap stays where the
# hostile-answer benchmarks measured it when max_tokens follows a model's 128,000-token limit.
_ANSWER_CAP_TOKENS = 32_000
_SANDBOX_MODES = ("auto", "require", "off")  # sandbox/bubblewrap.py: what each means
TESTS_MODES = ("protect", "report", "free")  # testguard/: what an answer or a build may do to the tests
TEST_PATTERNS_MODES = ("extend", "replace")  # testguard/files.py: test_patterns add to the defaults or replace them
_STALE_ROLLUP_MODES = ("warn", "refuse", "refresh")  # rollup/freshness.py: a rollup older than the files
_MIN_ROLLUP_BUDGET = 1000  # tokens: below this not even a small project's main files fit
# bytes: the rollup reads a file whole to judge it, and a model's whole context is a few MiB; a sparse
# file of 100 GiB under a bigger cap would be read into memory.
_MAX_ROLLUP_FILE_SIZE = 64 * 2**20
# Tables of config.toml that are not settings: their own modules read and check them.
_CONFIG_TABLES = ("models",)  # llm/catalog.py: model prices and context windows


# `flag`: the commands a setting's flag counts for when given before them; "run" is `code-commit`
# itself, and `config` honours every setting's flag, as it shows every setting. A setting with no
# flag is set in config.toml or the environment only. cli/flags.py makes the typer options from this.
RUN = ("run",)
_BUILDING = ("run", "apply", "check")  # the commands that run build.sh


@dataclass(frozen=True)
class _Loaded:
    """What a rule may look at besides the value: the other settings, where each came from, the root."""

    settings: Settings
    sources: Mapping[str, str]
    root: Path


# A setting's rule: its value (never None: an unset optional setting is not checked) -> why it is
# wrong, in words that follow "setting NAME (from SOURCE): ", or None.
_Rule = Callable[[Any, _Loaded], "str | None"]


def _check(ok: Callable[[Any], bool], why: str) -> _Rule:
    return lambda value, loaded: None if ok(value) else why


def _at_least(low: int, unit: str = "", hint: str = "") -> _Rule:
    return _check(lambda value: value >= low, f"must be at least {low}{unit}{hint}")


def _one_of(choices: tuple[str, ...], hint: str = "") -> _Rule:
    return lambda value, loaded: (
        None if value in choices else f"must be one of {', '.join(choices)}{hint}, not {value!r}"
    )


def _each(problem: Callable[[str], str | None]) -> _Rule:
    """A rule for a list setting: the first item's problem."""
    return lambda items, loaded: next((p for item in items if (p := problem(item)) is not None), None)


def _matchable(pattern: str) -> str | None:
    from code_commit.git.ignore import pattern_problem  # no git call: only the pattern's spelling is checked

    problem = pattern_problem(pattern)
    return None if problem is None else f"the pattern {pattern!r} can never match anything: {problem}"


def _variable_name(name: str) -> str | None:
    return None if _ENV_NAME.fullmatch(name) else f"{name!r} is not an environment variable name"


def _writable(paths: list[str], loaded: _Loaded) -> str | None:
    from code_commit.config.sandbox_writable import writable_problem

    return next((p for path in paths if (p := writable_problem(path, loaded.root, paths)) is not None), None)


def _readable(paths: list[str], loaded: _Loaded) -> str | None:
    from code_commit.config.sandbox_writable import readable_problem

    writable = loaded.settings.sandbox_writable
    return next((p for path in paths if (p := readable_problem(path, loaded.root, writable)) is not None), None)


def _home_paths(hides: bool) -> _Rule:
    """A rule for sandbox_hidden (`hides`) or sandbox_visible: each path absolute (or ~/...), and
    what is hidden may not hold the project (the build would lose it)."""

    def problem(paths: list[str], loaded: _Loaded) -> str | None:
        project = os.path.join(os.path.realpath(loaded.root), "")
        for path in paths:
            expanded = os.path.expanduser(path)
            if not os.path.isabs(expanded):
                return f"{path!r} is not an absolute path (or ~/...)"
            if hides and project.startswith(os.path.join(os.path.realpath(expanded), "")):
                return f"{path!r} holds the project, which the build must see"
        return None

    return problem


def _network(value: bool | list[str], loaded: _Loaded) -> str | None:
    if isinstance(value, bool):
        return None
    from code_commit.config.sandbox_network import network_problem  # and ipaddress: only where names are given

    return network_problem(value)


def _passable(name: str) -> str | None:
    """A variable build_env may pass: never a provider's credential or a setting."""
    if name in CHILD_SCRUBBED_ENV or name.upper().startswith(ENV_PREFIX):
        return f"{name} is never given to the build: the model's code must not get the key"
    return None


def _needs_a_model(provider: str, loaded: _Loaded) -> str | None:
    """A provider whose ids the default model id is not one of (openai, bedrock) needs one named."""
    entry = PROVIDERS.get(provider)
    if entry is not None and entry.needs_model and loaded.sources["model"] == "default":
        needs = entry.needs_model.format(default=DEFAULT_MODEL)
        return f"{provider} needs a model: {needs} with --model (or model in {CONFIG_DIR}/{CONFIG_FILE})"
    return None


def _replace_needs_patterns(mode: str, loaded: _Loaded) -> str | None:
    if mode == "replace" and not loaded.settings.test_patterns:
        return "replace needs test_patterns: with none, no file would be a test"
    return None


_POSITIVE = _check(lambda value: value > 0, "must be positive")
_NOT_NEGATIVE = _check(lambda value: value >= 0, "must be 0 or more")
_NO_LIMIT_OR_SECONDS = _check(lambda value: value >= 0, "must be 0 (no limit) or a positive number of seconds")
_PATTERNS = _each(_matchable)


def _setting(
    default: Any, doc: str, example: Any = None, flag: tuple[str, ...] = (), rules: tuple[_Rule, ...] = ()
) -> Any:
    """A field of Settings. `example`: shown in the config template for a setting that is unset (None)
    by default. `rules`: what its value must be (a float must also be finite), checked once loaded."""
    metadata = {"doc": doc, "example": example, "flag": flag, "rules": rules}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class Settings:
    provider: str = _setting(
        "anthropic",
        "Model provider: anthropic; openai, any server that speaks OpenAI's Chat Completions; bedrock, Claude "
        "on AWS Bedrock; vertex, Claude on Google Vertex AI.",
        flag=RUN,
        rules=(_one_of(tuple(PROVIDERS)), _needs_a_model),
    )
    model: str = _setting(
        DEFAULT_MODEL, "Model id sent to the provider, in its form (Bedrock's and Vertex's ids differ).", flag=RUN
    )
    max_tokens: int | None = _setting(
        None,
        "Output-token limit of one model request, thinking included. Unset means the model's own output limit "
        f"from the model catalog ({FALLBACK_MAX_TOKENS:,} for a model it does not know).",
        32000,
        flag=RUN,
        rules=(_at_least(1),),
    )
    effort: str | None = _setting(
        None,
        "How hard the model works: low, medium or high, sent only to models that take an effort level "
        "(Anthropic's output_config.effort, OpenAI's reasoning_effort). Unset leaves the model's default.",
        "high",
        flag=RUN,
        rules=(_one_of(_EFFORTS, " (or unset)"),),
    )
    cloud_region: str | None = _setting(
        None,
        "bedrock and vertex: the cloud region. Unset means AWS_REGION, AWS_DEFAULT_REGION or the AWS profile's "
        "region (bedrock), or CLOUD_ML_REGION (vertex).",
        "us-east-1",
    )
    vertex_project: str | None = _setting(
        None,
        "vertex: the Google Cloud project. Unset means ANTHROPIC_VERTEX_PROJECT_ID, or the project of the "
        "application default credentials.",
        "my-project",
    )
    base_url: str | None = _setting(
        None,
        "Endpoint of the provider; unset means ANTHROPIC_BASE_URL (OPENAI_BASE_URL for openai) or the "
        "provider's default.",
        "https://api.anthropic.com",
        flag=RUN,
    )
    max_repairs: int = _setting(
        3,
        "Repair queries after the initial one (0 to 3).",
        rules=(_check(lambda n: 0 <= n <= 3, "must be between 0 and 3"),),
    )
    build_timeout: float = _setting(
        1800.0, "Seconds before build.sh's whole process group is killed.", flag=_BUILDING, rules=(_POSITIVE,)
    )
    build_output_cap: int = _setting(
        60000,
        "Characters of build output (or of a refused answer's reasons) passed to a repair prompt.",
        rules=(_at_least(1000, " characters"),),
    )
    build_log_cap: int = _setting(
        20_000_000,
        "Characters of build output kept in each NN-build.txt: its first and last halves, with a marker for the cut.",
        rules=(_at_least(100_000, " characters"),),
    )
    max_answer_bytes: int | None = _setting(
        None,
        "Bytes of answer text read at most, continuations included (and as much again of thinking); past it "
        "the answer is refused. Unset means max_tokens x 16 x 4 (the first request and its 3 continuations), "
        f"max_tokens counted as at most {_ANSWER_CAP_TOKENS:,}.",
        2_048_000,
        rules=(_at_least(1000, " bytes", " (leave it unset for the default)"),),
    )
    max_failed_pairs: int = _setting(
        10,
        "Failing search/replace pairs after which the rest of an answer's pairs are not tried (it is refused).",
        rules=(_at_least(1),),
    )
    match_work: int = _setting(
        5_000_000,
        "Lines of files matched at most for one answer (each search/replace pair costs a pass over its file); "
        "past it the answer is refused.",
        rules=(_at_least(1000, " lines"),),
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
        rules=(_one_of(_PROMPT_ORDERS),),
    )
    repair_context: str = _setting(
        "failure",
        "failure: a repair prompt ends with the project files the build's output names, and what they import, "
        "that the rollup does not show whole (FILE CONTEXT sections). spec: the repair prompt has the spec's "
        "sections only.",
        rules=(_one_of(_REPAIR_CONTEXTS),),
    )
    max_cost: float | None = _setting(
        None,
        "Budget in US dollars: the run stops (exit 3) before a request that could go over it.",
        5.0,
        flag=RUN,
        rules=(_check(lambda value: value > 0, "must be a positive number of US dollars"),),
    )
    retry_attempts: int = _setting(
        10, "Attempts at one model request, the first included, before exit 3.", rules=(_at_least(1),)
    )
    connect_attempts: int = _setting(
        3,
        "Attempts at reaching the model service while the connection is refused, its name does not resolve "
        "or it does not answer the connection, before exit 3 (a wrong endpoint costs seconds, not minutes).",
        rules=(_at_least(1),),
    )
    retry_time: float = _setting(
        300.0, "Seconds one model request may spend failing and retrying before exit 3.", rules=(_POSITIVE,)
    )
    retry_wait_cap: float = _setting(
        60.0,
        "Longest single wait between attempts, even if the service asks for more.",
        rules=(_check(lambda value: value >= 0, "must be at least 0"),),
    )
    request_timeout: float = _setting(
        120.0, "Seconds without any data from the model service before an attempt fails.", rules=(_POSITIVE,)
    )
    stream_idle_timeout: float = _setting(
        300.0,
        "Seconds an answer may stream without a byte of its output (keep-alive pings, or a byte of an event at "
        "a time) before the attempt fails; then it is retried within retry_time.",
        rules=(_POSITIVE,),
    )
    stream_min_rate: float = _setting(
        1.0,
        "Bytes of output (answer or thinking) a second an answer must average over each minute once it has "
        "begun; a slower one fails as stalled (0 turns this off: a very slow local model).",
        rules=(_check(lambda value: value >= 0, "must be 0 (no minimum) or a number of bytes a second"),),
    )
    build_linger: float = _setting(
        2.0,
        "Seconds build.sh's background children may keep its output open after it exits; then they are killed.",
        rules=(_NOT_NEGATIVE,),
    )
    timeout: float | None = _setting(
        None,
        "Seconds the whole run may take, lock wait included (exit 5); 0 means no limit; unset means no limit "
        "at a terminal, and unattended_timeout without one.",
        3600,
        flag=_BUILDING,
        rules=(_NO_LIMIT_OR_SECONDS,),
    )
    unattended_timeout: float = _setting(
        7200.0,
        "The run's time limit when timeout is unset and standard input or output is not a terminal "
        "(cron, CI) or the CI variable is set; 0 means no limit.",
        rules=(_NO_LIMIT_OR_SECONDS,),
    )
    wait_lock: float = _setting(
        0.0,
        "Seconds to wait for another run's lock; 0 gives up at once (exit 4).",
        flag=(*_BUILDING, "recover"),
        rules=(_NOT_NEGATIVE,),
    )
    keep_runs: int = _setting(
        50,
        "Run folders kept under agent-config/logs/, newest first; 0 keeps them all.",
        rules=(_check(lambda value: value >= 0, "must be 0 (keep all) or more"),),
    )
    protected_patterns: list[str] = _setting(
        [],
        "Extra gitignore-style patterns the model may never write or delete (matched ignoring case).",
        [".github/workflows/**", ".env*"],
        rules=(_PATTERNS,),
    )
    redact_env: list[str] = _setting(
        [],
        "More environment variables whose values are censored everywhere, besides the provider keys and "
        "variables named like *_TOKEN, *_SECRET, *_KEY or *PASSWORD* (SECURITY.md: secrets).",
        ["DATABASE_URL"],
        rules=(_each(_variable_name),),
    )
    allow_delete: bool = _setting(True, "Whether an answer may delete files; false refuses every ^^^delete block.")
    tests: str = _setting(
        "protect",
        "What an answer or a build may do to the tests. protect: the existing tests and the test runners' "
        "configuration are read-only (an answer that changes them is refused; a build that does is no pass, exit "
        "12), new test files are kept but the pass is judged without them, and a pass needs the runners' own "
        "counts to show no failure and as many tests passing as the baseline ran. report: test changes are "
        "allowed, and named with any drop in the runners' counts. free: nothing is checked.",
        flag=_BUILDING,
        rules=(_one_of(TESTS_MODES),),
    )
    test_patterns: list[str] = _setting(
        [],
        "Gitignore-style patterns of more files that are tests (matched case-sensitively, "
        "`!` drops one), added to the built-in ones or, with test_patterns_mode = replace, instead of them.",
        ["qa/**", "Makefile"],
        rules=(_PATTERNS,),
    )
    test_patterns_mode: str = _setting(
        "extend",
        "extend: test_patterns add to the built-in test patterns; replace: they are the only ones.",
        rules=(_one_of(TEST_PATTERNS_MODES), _replace_needs_patterns),
    )
    edit_threshold_lines: int = _setting(
        500, "The prompt asks for edit blocks, not whole files, for files over this many lines.", rules=(_at_least(1),)
    )
    edit_threshold_bytes: int = _setting(
        15000,
        "The prompt asks for edit blocks, not whole files, for files over this many bytes.",
        rules=(_at_least(1),),
    )
    stale_rollup: str = _setting(
        "warn",
        "What a run does when the rollup shows files that changed since it was made (each file it holds whole "
        "is compared with the disk before the first call). warn: names them and goes on; refuse: stops before "
        "any call (exit 2), for cron jobs; refresh: makes the rollup again with `code-commit rollup` first.",
        flag=RUN,
        rules=(_one_of(_STALE_ROLLUP_MODES),),
    )
    rollup_budget: int = _setting(
        100_000,
        "code-commit rollup: estimated tokens the rollup may take (0: no limit). When not everything fits, "
        "source comes first, then tests, then config, docs and data; the rest is listed by name and size.",
        rules=(
            _check(
                lambda value: value == 0 or value >= _MIN_ROLLUP_BUDGET,
                f"must be 0 (no limit) or at least {_MIN_ROLLUP_BUDGET:,} tokens",
            ),
        ),
    )
    rollup_max_file_size: int = _setting(
        256 * 1024,
        "code-commit rollup: files over this many bytes are left out.",
        rules=(
            _check(lambda value: value >= 0, "must be 0 or more bytes"),
            _check(
                lambda value: value <= _MAX_ROLLUP_FILE_SIZE,
                f"must be at most {_MAX_ROLLUP_FILE_SIZE:,} bytes (64 MiB)",
            ),
        ),
    )
    rollup_exclude: list[str] = _setting(
        [],
        "code-commit rollup: gitignore-style patterns of files to leave out.",
        ["tests/data/", "*.csv"],
        rules=(_PATTERNS,),
    )
    rollup_include: list[str] = _setting(
        [],
        "code-commit rollup: gitignore-style patterns of files to include although a default rule leaves "
        "them out (lock files, generated files, config, docs and data over their share); they come first "
        "under the budget.",
        ["uv.lock", "docs/**"],
        rules=(_PATTERNS,),
    )
    sandbox: str = _setting(
        "auto",
        "Where build.sh runs: auto (in bubblewrap when it works here, else unsandboxed with a warning), "
        "require (no working sandbox is a setup error, exit 2: for cron and CI), off (with your full rights).",
        flag=_BUILDING,
        rules=(_one_of(_SANDBOX_MODES),),
    )
    sandbox_network: bool | list[str] = _setting(
        False,
        "The hosts a sandboxed build may reach, through a proxy on the host: registries (pypi, npm, crates, maven, "
        "go) and host names (example.com, *.example.com, with :PORT if need be); false: none; true: every host, "
        "the whole network (a warning says so).",
        ["pypi", "npm"],
        flag=_BUILDING,
        rules=(_network,),
    )
    sandbox_writable: list[str] = _setting(
        [],
        "Extra paths a sandboxed build may write (absolute or ~/...), outside the project: caches.",
        ["~/.cache/pip", "~/.npm"],
        flag=_BUILDING,
        rules=(_writable,),
    )
    sandbox_readable: list[str] = _setting(
        [],
        "Folders under the host's /tmp a sandboxed build may read (read-only): a tool or virtualenv kept there, "
        "which the build's own empty /tmp hides. Name the tool's folder, never /tmp: a folder shown shows its "
        "sockets too.",
        ["/tmp/tools/bin"],
        flag=_BUILDING,
        rules=(_readable,),
    )
    build_max_processes: int = _setting(
        4096,
        "Processes and threads a sandboxed build may run at once, all of them together; 0: no limit. In a cgroup "
        "where code-commit can make one (the build is then ended at once when it reaches it: a fork bomb), else "
        "a resource limit.",
        rules=(_check(lambda n: n == 0 or n >= 16, "must be 0 (no limit) or at least 16: a shell, tools, threads"),),
    )
    build_max_memory: int | None = _setting(
        None,
        "MiB of memory a sandboxed build may use, all its processes together, in a cgroup where code-commit "
        "can make one (else per process, RLIMIT_DATA); unset means three quarters of the caller's memory limit "
        "(its cgroup's, or the machine's memory, the smaller), with a cgroup only; 0: no limit.",
        8192,
        rules=(_check(lambda n: n == 0 or n >= 64, "must be 0 (no limit) or at least 64 MiB"),),
    )
    sandbox_hidden: list[str] = _setting(
        [],
        "More paths (absolute or ~/..., globs allowed) hidden from a sandboxed build, besides the home "
        "directory's credential stores (~/.ssh, ~/.aws, ~/.netrc, ~/.npmrc...: SECURITY.md).",
        ["~/.config/my-cloud", "~/secrets/*.json"],
        rules=(_home_paths(hides=True),),
    )
    sandbox_visible: list[str] = _setting(
        [],
        "Paths a sandboxed build sees, read-only, in the home it otherwise gets empty but for the toolchains' "
        "folders (absolute or ~/...); and credential stores it sees after all, each named: one it cannot do "
        "without, such as the registry settings in ~/.npmrc or ~/.m2/settings.xml.",
        ["~/.m2/settings.xml"],
        rules=(_home_paths(hides=False),),
    )
    sandbox_cache_days: int = _setting(
        30,
        "Days a project's sandbox cache (~/.cache/code-commit/sandbox/<project>-<hash>) is kept unused: each "
        "sandboxed build removes the caches of other projects unused that long; 0 keeps them all.",
        rules=(_NOT_NEGATIVE,),
    )
    build_env: list[str] = _setting(
        [],
        "Environment variables the build gets besides those the sandbox's tables allow (docs/configuration.md), "
        "or although they look secret (a token its registry needs): passed on purpose. A provider key or a "
        "CODE_COMMIT_ setting never passes.",
        ["NPM_TOKEN"],
        rules=(_each(_variable_name), _each(_passable)),
    )

    @property
    def network(self) -> NetworkAccess:
        """sandbox_network, parsed: checked when the settings load, so it parses here."""
        from code_commit.config.sandbox_network import network_access

        return network_access(self.sandbox_network)

    @property
    def answer_byte_cap(self) -> int:
        """The answer text read at most: max_answer_bytes, or enough for max_tokens (counted as at most
        ANSWER_CAP_TOKENS) in every request of an answer (the first and its continuations), at a
        generous size per token."""
        if self.max_answer_bytes is not None:
            return self.max_answer_bytes
        return min(output_limit(self), _ANSWER_CAP_TOKENS) * _ANSWER_BYTES_PER_TOKEN * (1 + MAX_CONTINUATIONS)


SETTING_NAMES = tuple(f.name for f in dataclasses.fields(Settings))


def output_limit(settings: Settings) -> int:
    """max_tokens as requests send it. A run sets an unset one to the model's output limit first
    (llm.catalog.with_output_limit); unset still, it is FALLBACK_MAX_TOKENS."""
    return FALLBACK_MAX_TOKENS if settings.max_tokens is None else settings.max_tokens


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


@functools.cache
def _hints() -> dict[str, Any]:
    """Each setting's type, resolved from its annotation once a process (a few ms each time)."""
    return typing.get_type_hints(Settings)


def load_settings(root: Path, env: Mapping[str, str] | None = None, flags: Flags | None = None) -> LoadedSettings:
    """Layer the sources; raise SetupError naming the source of any bad value."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    sources = {name: "default" for name in SETTING_NAMES}
    hints = _hints()

    path = config_path(root)
    raw = read_setup_file(path, "the settings file", _CONFIG_FILE_BYTES)
    if raw is not None:
        import tomllib  # only when there is a file to read: it costs ~10 ms of every start

        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SetupError(f"{path}: not valid TOML: {exc}. Fix the file or delete it.") from exc
        for name, value in data.items():
            if name in _CONFIG_TABLES:
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
    # Every folder a build may write, known now: no program code-commit runs itself is looked up there.
    distrust(root, *settings.sandbox_writable)
    return LoadedSettings(settings, sources)


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _coerce(name: str, value: Any, hint: Any, where: str, from_text: bool = False) -> Any:
    optional = isinstance(hint, types.UnionType) and type(None) in typing.get_args(hint)
    base = next((a for a in typing.get_args(hint) if a is not type(None)), hint) if optional else hint
    if optional and (value is None or (from_text and value == "")):
        return None
    try:
        if base == bool | list[str]:  # a switch, or the names it is on for (sandbox_network)
            return _switch_or_names(value, from_text)
        if typing.get_origin(base) is list:
            if from_text:
                return [part.strip() for part in value.split(",") if part.strip()]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError("expected a list of strings")
            return list(value)
        if base is bool:
            if isinstance(value, bool):
                return value
            if from_text and value.strip().lower() in _TRUE:
                return True
            if from_text and value.strip().lower() in _FALSE:
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


def _switch_or_names(value: Any, from_text: bool) -> bool | list[str]:
    """true, false, or a list of names: in config.toml a boolean or an array of strings; in the
    environment `true`, `false` or names separated by commas; as flags, one `true` or `false`, or names."""
    words = [value] if from_text else value if isinstance(value, list) else None
    if isinstance(value, bool):
        return value
    if words is None or not all(isinstance(word, str) for word in words):
        raise ValueError("expected true, false or a list of names")
    names = [part.strip() for word in words for part in (word.split(",") if from_text else [word]) if part.strip()]
    switch = [name.lower() for name in names if name.lower() in _TRUE + _FALSE]
    if switch and len(names) > 1:
        raise ValueError("true or false stands alone, without names")
    if switch:
        return switch[0] in _TRUE
    return names if names else False


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
    """Each setting against its own rules, in declaration order; the first problem is the error."""
    loaded = _Loaded(settings, sources, root)
    for setting in dataclasses.fields(Settings):
        value = getattr(settings, setting.name)
        if value is None:
            continue
        problem = "must be a finite number" if isinstance(value, float) and not math.isfinite(value) else None
        for rule in setting.metadata["rules"]:
            problem = problem or rule(value, loaded)
        if problem is not None:
            raise SetupError(f"setting {setting.name} (from {sources[setting.name]}): {problem}.")
