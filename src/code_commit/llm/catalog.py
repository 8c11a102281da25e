"""Model facts as data: prices and context windows, and what they let us estimate before a call.

The table ships as `models.toml` beside this module; `[models."id"]` tables in
agent-config/config.toml override or add entries key by key. Nothing here talks to the network.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from code_commit.config.settings import FALLBACK_MAX_TOKENS, Settings, config_path
from code_commit.errors import BudgetExceeded, SetupError
from code_commit.llm.base import Usage
from code_commit.providers import TABLE

MODELS_FILE = Path(__file__).with_name("models.toml")
_CONFIG_TABLE = "models"
_PRICE_KEYS = ("input", "output", "cache_write", "cache_read")
# Every key an entry may have, shipped or in agent-config/config.toml, and the kind of value it takes.
_NUMBERS = (*_PRICE_KEYS, "context_window", "max_output")
FLAGS = ("effort", "legacy_cloud_api")
_TEXTS = ("source", "checked", "notes")
KEYS = (*_NUMBERS, "tiers", *FLAGS, *_TEXTS)
_TIER_KEYS = ("above", *_PRICE_KEYS)
_DATE_SUFFIX = re.compile(r"-\d{8}$")
# The clouds' forms of a model id (Bedrock's, Vertex's): each provider's entry gives its own.
_ID_FORMS = tuple(re.compile(entry.model_ids) for entry in TABLE if entry.model_ids)
# Token estimates from characters, for checks made before the service has counted anything.
# Code and prose run at about 3 to 4.5 characters per token. A prompt is refused as too long for the
# context only on the low estimate (so a prompt that might fit is never refused), and the budget is
# guarded with the high one (so a call that might go over is never started).
_CHARS_PER_TOKEN_LOW_ESTIMATE = 4.0
CHARS_PER_TOKEN_HIGH_ESTIMATE = 3.0


def tokens_at_least(chars: int) -> int:
    return math.floor(chars / _CHARS_PER_TOKEN_LOW_ESTIMATE)


def tokens_at_most(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN_HIGH_ESTIMATE)


def estimated_usage(prompt_chars: int, answer_chars: int) -> Usage:
    """The tokens of a request the service did not count (a server that reports no usage, an attempt that
    broke off first), from its text: the prompt read and the answer written, thinking included, at the
    high estimate, so that --max-cost is never spent by less than it was. Marked as estimated."""
    return Usage(input_tokens=tokens_at_most(prompt_chars), output_tokens=tokens_at_most(answer_chars), estimated=True)


@dataclass(frozen=True)
class _Price:
    """US dollars per million tokens of each kind."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_write_tokens * self.cache_write
            + usage.cache_read_tokens * self.cache_read
        ) / 1_000_000


@dataclass(frozen=True)
class _Tier:
    """The prices of a request whose input passes `above` tokens: they apply to all of it."""

    above: int
    price: _Price


@dataclass(frozen=True)
class ModelInfo:
    """What the catalog knows about one model; any part may be unknown (None)."""

    model: str
    price: _Price | None = None
    context_window: int | None = None
    max_output: int | None = None
    tiers: tuple[_Tier, ...] = ()  # by `above`, lowest first
    effort: bool = False  # takes an effort level
    legacy_cloud_api: bool = False  # on Bedrock and Vertex, needs the clouds' older API version
    entry: str | None = None  # the catalog entry that matched, None for an unknown model
    context_source: str | None = None  # where context_window came from when the catalog had none: the server

    def price_for(self, input_tokens: int) -> _Price | None:
        """The prices of one request with this many input tokens (uncached, written and read)."""
        price = self.price
        for tier in self.tiers:
            if input_tokens > tier.above:
                price = tier.price
        return price

    def cost(self, usage: Usage) -> float | None:
        """The cost of ONE request: a tier is chosen by that request's input, so a call's requests
        (continuations, failed attempts) are priced one by one, never summed first."""
        price = self.price_for(usage.all_input_tokens)
        return None if price is None else price.cost(usage)


@dataclass(frozen=True)
class _Catalog:
    entries: Mapping[str, Mapping[str, Any]]
    source: str  # for messages: where overrides come from

    def lookup(self, model: str) -> ModelInfo:
        name = self._entry_name(model)
        if name is None:
            return ModelInfo(model)
        entry = self.entries[name]
        window, limit = entry.get("context_window"), entry.get("max_output")
        base = _price(entry)
        tiers = sorted((_Tier(int(t["above"]), _prices(t)) for t in entry.get("tiers", ())), key=_above)
        return ModelInfo(
            model,
            price=base,
            context_window=None if window is None else int(window),
            max_output=None if limit is None else int(limit),
            tiers=tuple(tiers) if base is not None else (),
            effort=bool(entry.get("effort", False)),
            legacy_cloud_api=bool(entry.get("legacy_cloud_api", False)),
            entry=name,
        )

    def _entry_name(self, model: str) -> str | None:
        """The entry for a model id as given, or in a cloud's form (Bedrock's, Vertex's), or with a date."""
        candidates = [model]
        for form in _ID_FORMS:
            match = form.match(model)
            if match:
                candidates.append(match["id"])
        candidates += [_DATE_SUFFIX.sub("", name) for name in candidates]
        return next((name for name in candidates if name in self.entries), None)


def _above(tier: _Tier) -> int:
    return tier.above


def _price(entry: Mapping[str, Any]) -> _Price | None:
    """An entry's (or a tier's) prices. Without cache rates (another vendor's price, a local model) no
    cache discount is assumed: cache tokens cost as input."""
    if "input" not in entry or "output" not in entry:
        return None
    return _prices(entry)


def _prices(entry: Mapping[str, Any]) -> _Price:
    return _Price(
        input=entry["input"],
        output=entry["output"],
        cache_write=entry.get("cache_write", entry["input"]),
        cache_read=entry.get("cache_read", entry["input"]),
    )


@functools.cache
def _shipped() -> Mapping[str, Mapping[str, Any]]:
    """The shipped table, checked: parsed once a process (10 ms of every run otherwise)."""
    import tomllib  # only when a run needs the catalog: importing code_commit.llm stays light

    shipped = tomllib.loads(MODELS_FILE.read_text(encoding="utf-8"))[_CONFIG_TABLE]
    for model, values in shipped.items():
        _check_entry(f'{MODELS_FILE}: [{_CONFIG_TABLE}."{model}"]', values)
    return types.MappingProxyType(shipped)


def load_catalog(root: Path) -> _Catalog:
    """The shipped table with the project's overrides; SetupError names the file and key of a bad value."""
    import tomllib

    # An override replaces an entry's keys, never a value inside one: the top level is copied (a deep
    # copy of the whole table was 5 ms of every run), the nested tiers are the shipped table's.
    entries: dict[str, dict[str, Any]] = {model: dict(values) for model, values in _shipped().items()}
    path = config_path(root)
    overrides: Any = {}
    if path.is_file():
        try:
            overrides = tomllib.loads(path.read_text(encoding="utf-8")).get(_CONFIG_TABLE, {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SetupError(f"{path}: not valid TOML: {exc}. Fix the file or delete it.") from exc
    if not isinstance(overrides, dict):
        raise SetupError(f'{path}: {_CONFIG_TABLE} must be a table of tables, e.g. [{_CONFIG_TABLE}."model-id"].')
    for model, values in overrides.items():
        _check_entry(f'{path}: [{_CONFIG_TABLE}."{model}"]', values)
        entries.setdefault(model, {}).update(values)
    return _Catalog(entries, str(path))


def _check_entry(where: str, values: Any) -> None:
    """SetupError naming `where` and the key for anything an entry may not hold."""
    if not isinstance(values, dict):
        raise SetupError(f"{where} must be a table with some of the keys {', '.join(KEYS)}.")
    for key, value in values.items():
        if key not in KEYS:
            raise SetupError(f"{where}: unknown key {key!r}; known keys: {', '.join(KEYS)}.")
        if key in _NUMBERS:
            _check_number(where, key, value)
        elif key in FLAGS and not isinstance(value, bool):
            raise SetupError(f"{where}: {key} must be true or false, not {value!r}.")
        elif key in _TEXTS and not isinstance(value, str):
            raise SetupError(f"{where}: {key} must be a string, not {value!r}.")
        elif key == "tiers":
            _check_tiers(where, value, values)


def _check_number(where: str, key: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
        raise SetupError(f"{where}: {key} must be a number of at least 0, not {value!r}.")
    if key in ("context_window", "max_output", "above") and (not isinstance(value, int) or value < 1):
        raise SetupError(f"{where}: {key} must be a whole number of tokens, not {value!r}.")


def _check_tiers(where: str, tiers: Any, entry: Mapping[str, Any]) -> None:
    example = f"[[{where.rsplit('[', 1)[-1].rstrip(']')}.tiers]] with above, input and output"
    if not isinstance(tiers, list) or not all(isinstance(tier, dict) for tier in tiers):
        raise SetupError(f"{where}: tiers must be an array of tables: {example}.")
    for tier in tiers:
        for key, value in tier.items():
            if key not in _TIER_KEYS:
                raise SetupError(f"{where}: unknown tier key {key!r}; known keys: {', '.join(_TIER_KEYS)}.")
            _check_number(where, key if key == "above" else f"tiers.{key}", value)
        if not {"above", "input", "output"} <= set(tier):
            raise SetupError(f"{where}: a tier needs above, input and output: {example}.")
    if tiers and not {"input", "output"} <= set(entry):
        raise SetupError(f"{where}: tiers need the model's own input and output prices too.")


@dataclass
class Budget:
    """--max-cost: refuses any request whose worst case would take the run's spending over the limit."""

    limit: float
    info: ModelInfo
    max_tokens: int
    spent: float = 0.0
    estimated: float = 0.0  # of spent, what was priced from token counts estimated from the text

    def check(self, prompt_chars: int) -> None:
        """Before a request: its input at the highest input rate of the tier that input could reach (at
        the high estimate of its tokens), and a full max_tokens of output at that tier's rate."""
        input_tokens = tokens_at_most(prompt_chars)
        price = self.info.price_for(input_tokens)
        assert price is not None, "a budget needs a price: check_fits checks it"
        worst = (input_tokens * max(price.input, price.cache_write) + self.max_tokens * price.output) / 1_000_000
        if self.spent + worst > self.limit:
            of_it = (
                f" (${self.estimated:.4f} of it estimated from the text: the server reported no token usage)"
                if self.estimated
                else ""
            )
            raise BudgetExceeded(
                f"stopped before the next request to {self.info.model}: it could cost up to ${worst:.4f} "
                f"(about {input_tokens:,} input tokens and up to {self.max_tokens:,} output tokens), and "
                f"${self.spent:.4f} is already spent{of_it}, which would go over --max-cost ${self.limit:.4f}. "
                "Raise --max-cost, or lower --max-tokens to reserve less for the answer."
            )

    def charge(self, usage: Usage) -> None:
        cost = self.info.cost(usage) or 0.0
        self.spent += cost
        if usage.estimated:
            self.estimated += cost


def with_output_limit(settings: Settings, info: ModelInfo) -> Settings:
    """The settings as a run uses them: an unset max_tokens is the model's output limit."""
    if settings.max_tokens is not None:
        return settings
    return dataclasses.replace(settings, max_tokens=info.max_output or FALLBACK_MAX_TOKENS)


def model_notes(info: ModelInfo, settings: Settings) -> list[str]:
    """What a run says once about its model: what the catalog does not know, and an effort not sent."""
    notes = []
    add = f'add [{_CONFIG_TABLE}."{info.model}"] to agent-config/config.toml'
    if info.price is None:
        notes.append(
            f"cost unknown: the model catalog has no price for {info.model}; to see costs, {add} with "
            "input and output (US dollars per million tokens)"
        )
    if info.context_source is not None:
        notes.append(
            f"context window of {info.model}: {info.context_window:,} tokens, as {info.context_source} says "
            f"(the model catalog has none; {add} with context_window to set it)"
        )
    elif info.context_window is None:
        notes.append(
            f"context window unknown for {info.model}: no prompt is refused before it is sent ({add} "
            "with context_window to check)"
        )
    if settings.effort is not None and not info.effort:
        why = "does not take one" if info.entry else "is not known to take one"
        notes.append(
            f"effort = {settings.effort!r} is not sent: {info.model} {why} (set effort = true in "
            f'[{_CONFIG_TABLE}."{info.model}"] if it does)'
        )
    return notes


def prompt_too_long(model: str, chars: int, detail: str, counted: int | None = None) -> str:
    """The message for a prompt the model cannot take: its size (as the server counted it, where it
    said), and the fix."""
    estimate = f"at least about {tokens_at_least(chars):,} tokens"
    size = f"{counted:,} tokens as the server counts them" if counted else estimate
    return (
        f"the prompt is too long for {model} ({detail}). It is {chars:,} characters, {size}. Shrink the "
        "rollup: regenerate agent-config/codeRollup.txt with fewer or smaller files (code-commit rollup "
        "--max-file-size, or git-ignore generated files), or choose a model (or a server setting) with a "
        "larger context."
    )
