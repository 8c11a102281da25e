"""The model catalog as data (llm/models.toml): every entry names its source and date; tiered prices are
chosen request by request, for the cost lines and for --max-cost alike; the config adds and overrides."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from code_commit.llm.base import Usage
from code_commit.llm.catalog import MODELS_FILE, load_catalog

from fakeapi import FakeAPI
from support import Project, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nnope\n^^^end\n"
CATALOG = load_catalog(Path("/nonexistent"))


def test_every_entry_names_its_source_and_the_day_it_was_read() -> None:
    entries = tomllib.loads(MODELS_FILE.read_text())["models"]
    assert len(entries) >= 20
    for model, entry in entries.items():
        assert entry["source"].strip(), model
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry["checked"]), model
        info = CATALOG.lookup(model)
        assert info.price is not None and info.context_window and info.max_output, model
        assert info.price.cache_read <= info.price.input <= info.price.output, model
        for tier in info.tiers:
            assert tier.price.input > info.price.input and tier.price.output > info.price.output, model


@pytest.mark.parametrize(
    "model",
    [
        "claude-opus-5-5",
        "claude-sonnet-5-5",
        "claude-haiku-5-5",
        "claude-opus-5",
        "claude-sonnet-5",
        "claude-opus-4-8",
        "claude-opus-4-7",
        "claude-opus-4-6",
        "claude-sonnet-4-6",
        "gpt-6-sol",
        "gpt-6.2-sol",
        "gpt-5.5",
    ],
)
def test_the_current_lines_take_about_a_million_tokens(model: str) -> None:
    info = CATALOG.lookup(model)
    assert info.context_window is not None and info.context_window >= 900_000
    assert info.max_output == 128_000


@pytest.mark.parametrize(
    ("cloud_id", "entry"),
    [
        ("global.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
        ("us.anthropic.claude-sonnet-5-5", "claude-sonnet-5-5"),
        ("anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc", None),
    ],
)
def test_a_cloud_s_model_id_finds_its_entry(cloud_id: str, entry: str | None) -> None:
    assert CATALOG.lookup(cloud_id).entry == entry


def test_a_tier_prices_the_whole_request_by_its_own_input() -> None:
    haiku = CATALOG.lookup("claude-haiku-5-5")  # $0.10/$0.50; over 100,000 input tokens $0.50/$2.50
    at_the_line = Usage(input_tokens=60_000, output_tokens=1000, cache_read_tokens=40_000)
    past_it = Usage(input_tokens=60_000, output_tokens=1000, cache_read_tokens=40_001)
    assert haiku.cost(at_the_line) == pytest.approx((60_000 * 0.10 + 1000 * 0.50 + 40_000 * 0.01) / 1e6)
    assert haiku.cost(past_it) == pytest.approx((60_000 * 0.50 + 1000 * 2.50 + 40_001 * 0.05) / 1e6)
    gpt = CATALOG.lookup("gpt-6-sol")  # over 272,000: input x2, output x1.5
    assert gpt.cost(Usage(input_tokens=300_000, output_tokens=1000)) == pytest.approx((300_000 * 4 + 1000 * 15) / 1e6)


def test_a_call_s_requests_are_priced_one_by_one(project: Project, api: FakeAPI, cli) -> None:
    # Two requests of 60,000 input tokens each: 120,000 together, but neither passes Haiku 5.5's
    # 100,000-token line, so both pay the base price.
    usage = {"input_tokens": 60_000, "output_tokens": 1000}
    api.reply("^^^fixed.txt\nfix", stop_reason="max_tokens", usage=usage)
    api.reply("^^^fixed.txt\nfixed\n^^^end\n", usage=usage)

    result = cli("--model", "claude-haiku-5-5", "--json")

    assert result.exit_code == 0, result.stderr
    base = (60_000 * 0.10 + 1000 * 0.50) / 1e6
    assert f"cost_usd={2 * base:.6f}" in logged(project)["run.log"]


def test_a_request_past_the_line_pays_the_tier(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX, usage={"input_tokens": 20_000, "output_tokens": 1000, "cache_read_input_tokens": 90_000})

    assert cli("--model", "claude-haiku-5-5").exit_code == 0
    cost = (20_000 * 0.50 + 1000 * 2.50 + 90_000 * 0.05) / 1e6
    assert f"cost_usd={cost:.6f}" in logged(project)["run.log"]


def test_max_cost_reserves_at_the_tier_a_large_prompt_reaches(project: Project, api: FakeAPI, cli) -> None:
    # About 170,000 tokens of rollup: past Haiku 5.5's line, so the worst case is at $0.50 input and
    # $2.50 output (the base prices would reserve a fifth of it, and the budget below would let it through).
    project.write("agent-config/codeRollup.txt", "==> big.txt <==\n" + "x = 1\n" * 85_000)
    api.reply(FIX)

    result = cli("--model", "claude-haiku-5-5", "--max-tokens", "10000", "--max-cost", "0.10")

    assert result.exit_code == 3
    assert api.requests == []
    assert "stopped before the next request to claude-haiku-5-5" in result.stderr


def test_tiers_in_the_config(tmp_path: Path) -> None:
    (tmp_path / "agent-config").mkdir()
    (tmp_path / "agent-config" / "config.toml").write_text(
        '[models."vendor-x"]\ninput = 1\noutput = 2\ncontext_window = 500000\nmax_output = 8000\neffort = true\n'
        '[[models."vendor-x".tiers]]\nabove = 200000\ninput = 2\noutput = 4\n'
    )
    info = load_catalog(tmp_path).lookup("vendor-x")
    assert info.effort and info.max_output == 8000
    assert info.cost(Usage(input_tokens=200_001)) == pytest.approx(200_001 * 2 / 1e6)
    assert info.cost(Usage(input_tokens=200_000, cache_read_tokens=1)) == pytest.approx(200_001 * 2 / 1e6)


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ('[models."m"]\nmax_output = 0\n', "max_output must be a whole number of tokens"),
        ('[models."m"]\neffort = "yes"\n', "effort must be true or false"),
        ('[models."m"]\ninput = 1\noutput = 2\ntiers = 3\n', "tiers must be an array of tables"),
        ('[models."m"]\ninput = 1\noutput = 2\n[[models."m".tiers]]\ninput = 2\noutput = 4\n', "a tier needs above"),
        ('[models."m"]\n[[models."m".tiers]]\nabove = 5\ninput = 2\noutput = 4\n', "the model's own input and output"),
        ('[models."m"]\ninput = 1\noutput = 2\n[[models."m".tiers]]\nabove = 5\ninput = 2\noutput = 4\nx = 1\n', "'x'"),
        ('[models."m"]\ninput = inf\n', "input must be a number of at least 0"),
    ],
)
def test_a_bad_catalog_entry_is_a_setup_error(project: Project, api: FakeAPI, cli, table: str, fragment: str) -> None:
    project.write("agent-config/config.toml", table)

    result = cli()

    assert result.exit_code == 2
    assert fragment in result.stderr
    assert api.requests == []


def test_an_unknown_model_s_cost_is_unknown_until_the_config_prices_it(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX, usage={"input_tokens": 1000, "output_tokens": 100})
    result = cli("--model", "claude-unpriced-1", "--dry-run")
    assert "cost unknown: the model catalog has no price for claude-unpriced-1" in result.stderr
    assert 'add [models."claude-unpriced-1"] to agent-config/config.toml' in result.stderr

    project.write("agent-config/config.toml", '[models."claude-unpriced-1"]\ninput = 1\noutput = 10\n')
    api.reply(FIX, usage={"input_tokens": 1000, "output_tokens": 100})
    result = cli("--model", "claude-unpriced-1", "--dry-run")
    assert "cost unknown" not in result.stderr
    assert f"~${(1000 + 1000) / 1e6:.4f}" in result.stderr
