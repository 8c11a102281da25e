"""Model facts as data: prices and context windows, and what they let us estimate before a call.

The table ships as `models.toml` beside this module; `[models."id"]` tables in
agent-config/config.toml override or add entries key by key. Nothing here talks to the network.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from code_commit.config.settings import config_path
from code_commit.errors import BudgetExceeded, SetupError
from code_commit.llm.base import Usage

MODELS_FILE = Path(__file__).with_name("models.toml")
CONFIG_TABLE = "models"
PRICE_KEYS = ("input", "output", "cache_write", "cache_read")
KEYS = (*PRICE_KEYS, "context_window")
_DATE_SUFFIX = re.compile(r"-\d{8}$")

# Token estimates from characters, for checks made before the service has counted anything.
# Code and prose run at about 3 to 4.5 characters per token. A prompt is refused as too long for the
# context only on the low estimate (so a prompt that might fit is never refused), and the budget is
# guarded with the high one (so a call that might go over is never started).
CHARS_PER_TOKEN_LOW_ESTIMATE = 4.0
CHARS_PER_TOKEN_HIGH_ESTIMATE = 3.0


def tokens_at_least(chars: int) -> int:
    return math.floor(chars / CHARS_PER_TOKEN_LOW_ESTIMATE)


def tokens_at_most(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN_HIGH_ESTIMATE)


@dataclass(frozen=True)
class Price:
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
class ModelInfo:
    """What the catalog knows about one model; either part may be unknown."""

    model: str
    price: Price | None = None
    context_window: int | None = None

    def cost(self, usage: Usage) -> float | None:
        return None if self.price is None else self.price.cost(usage)


@dataclass(frozen=True)
class Catalog:
    entries: Mapping[str, Mapping[str, float]]
    source: str  # for messages: where overrides come from

    def lookup(self, model: str) -> ModelInfo:
        entry = self.entries.get(model)
        if entry is None:
            entry = self.entries.get(_DATE_SUFFIX.sub("", model), {})
        price = None
        if "input" in entry and "output" in entry:
            # A price without cache rates (another vendor's, a local model) assumes no cache discount.
            price = Price(
                input=entry["input"],
                output=entry["output"],
                cache_write=entry.get("cache_write", entry["input"]),
                cache_read=entry.get("cache_read", entry["input"]),
            )
        window = entry.get("context_window")
        return ModelInfo(model, price, None if window is None else int(window))


def load_catalog(root: Path) -> Catalog:
    """The shipped table with the project's overrides; SetupError names the file and key of a bad value."""
    shipped = tomllib.loads(MODELS_FILE.read_text(encoding="utf-8"))
    entries = {model: dict(values) for model, values in shipped[CONFIG_TABLE].items()}
    path = config_path(root)
    overrides: Any = {}
    if path.is_file():
        try:
            overrides = tomllib.loads(path.read_text(encoding="utf-8")).get(CONFIG_TABLE, {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SetupError(f"{path}: not valid TOML: {exc}. Fix the file or delete it.") from exc
    if not isinstance(overrides, dict):
        raise SetupError(f'{path}: {CONFIG_TABLE} must be a table of tables, e.g. [{CONFIG_TABLE}."model-id"].')
    for model, values in overrides.items():
        where = f'{path}: [{CONFIG_TABLE}."{model}"]'
        if not isinstance(values, dict):
            raise SetupError(f"{where} must be a table with some of the keys {', '.join(KEYS)}.")
        for key, value in values.items():
            if key not in KEYS:
                raise SetupError(f"{where}: unknown key {key!r}; known keys: {', '.join(KEYS)}.")
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise SetupError(f"{where}: {key} must be a number of at least 0, not {value!r}.")
            if key == "context_window" and (not isinstance(value, int) or value < 1):
                raise SetupError(f"{where}: context_window must be a whole number of tokens, not {value!r}.")
        entries.setdefault(model, {}).update(values)
    return Catalog(entries, str(path))


@dataclass
class Budget:
    """--max-cost: refuses any request whose worst case would take the run's spending over the limit."""

    limit: float
    info: ModelInfo
    max_tokens: int
    spent: float = 0.0

    def check(self, prompt_chars: int) -> None:
        """Before a request: its input at the highest input rate, and a full max_tokens of output."""
        price = self.info.price
        assert price is not None, "a budget needs a price: load_budget checks it"
        input_tokens = tokens_at_most(prompt_chars)
        worst = (input_tokens * max(price.input, price.cache_write) + self.max_tokens * price.output) / 1_000_000
        if self.spent + worst > self.limit:
            raise BudgetExceeded(
                f"stopped before the next request to {self.info.model}: it could cost up to ${worst:.4f} "
                f"(about {input_tokens:,} input tokens and up to {self.max_tokens:,} output tokens), and "
                f"${self.spent:.4f} is already spent, which would go over --max-cost ${self.limit:.4f}. "
                "Raise --max-cost, or lower --max-tokens to reserve less for the answer."
            )

    def charge(self, usage: Usage) -> None:
        self.spent += self.info.cost(usage) or 0.0


def prompt_too_long(model: str, chars: int, detail: str) -> str:
    """The message for a prompt the model cannot take: its size, and the fix."""
    return (
        f"the prompt is too long for {model} ({detail}). It is {chars:,} characters, at least about "
        f"{tokens_at_least(chars):,} tokens. Shrink the rollup: regenerate agent-config/codeRollup.txt with "
        "fewer or smaller files (code-commit rollup --max-file-size, or git-ignore generated files), "
        "or choose a model with a larger context."
    )
