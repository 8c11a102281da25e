"""Usage and cost: every call's tokens and estimated cost in the log, the call's usage file, the console
and the run's totals; the price table as data the config can override; --max-cost."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import anthropic
import pytest

from code_commit.config.settings import DEFAULT_MODEL, load_settings
from code_commit.errors import SetupError
from code_commit.llm.base import Usage
from code_commit.llm.catalog import load_catalog

from fakeapi import FakeAPI
from support import Project, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nnope\n^^^end\n"
USAGE = {
    "input_tokens": 1000,
    "output_tokens": 200,
    "cache_creation_input_tokens": 3000,
    "cache_read_input_tokens": 5000,
}
# The tests price claude-sonnet-4-6: $3 input, $15 output, $3.75 cache write, $0.30 cache read per million
# tokens (its output limit, the default max_tokens, is 128,000 tokens).
MODEL = "claude-sonnet-4-6"
COST = (1000 * 3 + 200 * 15 + 3000 * 3.75 + 5000 * 0.30) / 1_000_000


@pytest.fixture(autouse=True)
def _priced_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODE_COMMIT_MODEL", MODEL)


def test_every_call_reports_its_tokens_and_cost_and_the_run_its_totals(project: Project, api: FakeAPI, cli) -> None:
    api.reply(WRONG, usage=USAGE)
    api.reply(FIX, usage=USAGE)

    result = cli()

    assert result.exit_code == 0
    files = logged(project)
    for call in ("01", "02"):
        usage_file = files[f"{call}-usage.txt"]
        assert f"call: {int(call)}\n" in usage_file
        for line in (
            "stop_reason: end_turn",
            "input_tokens: 1000",
            "output_tokens: 200",
            "cache_write_tokens: 3000",
            "cache_read_tokens: 5000",
            "cached_share: 0.56",
            f"cost_usd: {COST:.6f}",
            "requests: 1",
        ):
            assert line + "\n" in usage_file
        assert "duration_s: " in usage_file
    log = files["run.log"]
    assert log.count(f"cost_usd={COST:.6f}") == 2
    assert (
        "run total: calls=2 input_tokens=2000 output_tokens=400 thinking_tokens=0 cache_write_tokens=6000 "
        f"cache_read_tokens=10000 cached_share=0.56 cost_usd={2 * COST:.6f}"
    ) in log
    assert result.stderr.count(f"9,000 input tokens (56% from cache), 200 output tokens, ~${COST:.4f}") == 2
    assert f"total for 2 calls: 18,000 input tokens (56% from cache), 400 output tokens, ~${2 * COST:.4f}" in (
        result.stderr
    )


def test_a_failed_call_still_reports_what_it_used(project: Project, api: FakeAPI, cli) -> None:
    # The first part of an answer was paid for; then the continuation fails for good.
    api.reply("^^^fixed.txt\nfix", stop_reason="max_tokens", usage=USAGE)
    api.status(401)

    assert cli().exit_code == 3
    log = logged(project)["run.log"]
    assert "call 1: stop_reason=error input_tokens=1000 output_tokens=200" in log
    assert "run total: calls=1 input_tokens=1000" in log and f"cost_usd={COST:.6f}" in log


def test_the_config_overrides_a_price(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", f'[models."{MODEL}"]\noutput = 100.0\n')
    api.reply(FIX, usage=USAGE)

    assert cli().exit_code == 0
    cost = (1000 * 3 + 200 * 100 + 3000 * 3.75 + 5000 * 0.30) / 1_000_000
    assert f"cost_usd={cost:.6f}" in logged(project)["run.log"]


def test_a_model_without_a_price_says_its_cost_is_unknown(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX, usage=USAGE)

    result = cli("--model", "claude-unpriced-1")

    assert result.exit_code == 0
    assert "cost_usd=unknown" in logged(project)["run.log"]
    assert "cost unknown (no price for this model)" in result.stderr


def test_a_model_added_in_the_config_gets_a_price(tmp_path: Path) -> None:
    (tmp_path / "agent-config").mkdir()
    (tmp_path / "agent-config" / "config.toml").write_text(
        'model = "local-llama"\n[models."local-llama"]\ninput = 0\noutput = 0\ncontext_window = 8192\n'
        '[models."vendor-x"]\ninput = 2\noutput = 8\n'
    )
    catalog = load_catalog(tmp_path)
    local = catalog.lookup("local-llama")
    assert local.cost(Usage(1000, 1000, 0, 0)) == 0.0
    assert local.context_window == 8192
    # No cache rates given: no cache discount assumed.
    assert catalog.lookup("vendor-x").cost(Usage(0, 0, 1_000_000, 1_000_000)) == 4.0
    assert load_settings(tmp_path, env={}).settings.model == "local-llama", "the table is not a setting"


def test_a_dated_model_id_falls_back_to_its_line() -> None:
    catalog = load_catalog(Path("/nonexistent"))
    assert catalog.lookup("claude-sonnet-4-5-20250929").price == catalog.lookup("claude-sonnet-4-5").price
    assert catalog.lookup("claude-sonnet-4-5-20250929").price is not None
    assert catalog.lookup("no-such-model").price is None


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ('[models."m"]\ncolour = 1\n', "unknown key 'colour'"),
        ('[models."m"]\ninput = "cheap"\n', "input must be a number of at least 0"),
        ('[models."m"]\ninput = -1\n', "input must be a number of at least 0"),
        ('[models."m"]\ncontext_window = 1.5\n', "context_window must be a whole number"),
        ("models = 3\n", "must be a table of tables"),
        ("[models]\nm = 3\n", 'models."m"] must be a table'),
    ],
)
def test_a_bad_price_table_is_a_setup_error(project: Project, api: FakeAPI, cli, table: str, fragment: str) -> None:
    project.write("agent-config/config.toml", table)

    result = cli()

    assert result.exit_code == 2
    assert fragment in result.stderr
    assert api.requests == []


def test_the_default_model_is_a_sonnet_the_sdk_knows_and_the_table_prices() -> None:
    known = typing.get_args(typing.get_args(anthropic.types.ModelParam)[0])
    assert DEFAULT_MODEL in known
    assert "sonnet" in DEFAULT_MODEL
    info = load_catalog(Path("/nonexistent")).lookup(DEFAULT_MODEL)
    assert info.price is not None and info.context_window is not None


# --- --max-cost ---


def test_max_cost_stops_the_run_before_a_call_that_could_go_over(project: Project, api: FakeAPI, cli) -> None:
    # With --max-tokens 1000, a call reserves 1000 output tokens ($0.015) plus its input at the highest
    # input rate. The first answer costs $0.045 (10,000 input and 1,000 output tokens): the second
    # call's worst case would pass $0.06.
    api.reply(WRONG, usage={"input_tokens": 10_000, "output_tokens": 1000})
    api.reply(FIX)

    result = cli("--max-tokens", "1000", "--max-cost", "0.06")

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert api.pending == 1
    assert "stopped before the next request" in result.stderr
    assert "would go over --max-cost $0.0600" in result.stderr
    assert "$0.0450 is already spent" in result.stderr
    assert (project.root / "wrong.txt").exists(), "the first answer was applied and built; nothing is undone"
    assert "call 2: stop_reason=error" in logged(project)["run.log"]


def test_max_cost_within_budget_changes_nothing(project: Project, api: FakeAPI, cli) -> None:
    api.reply(WRONG, usage={"input_tokens": 10_000, "output_tokens": 1000})
    api.reply(FIX)

    assert cli("--max-tokens", "1000", "--max-cost", "1").exit_code == 0
    assert len(api.requests) == 2


def test_max_cost_stops_even_the_first_call(project: Project, api: FakeAPI, cli) -> None:
    # The default output limit, the model's 128,000 tokens, alone could cost $1.92.
    result = cli("--max-cost", "0.10")

    assert result.exit_code == 3
    assert api.requests == []
    assert "lower --max-tokens" in result.stderr
    assert "requests: 0\nretries: 0\n" in logged(project)["01-usage.txt"], "the record says nothing was sent"


def test_max_cost_is_asked_before_every_retry(project: Project, api: FakeAPI, cli) -> None:
    # One request's worst case is about $0.025 ($0.015 of it the 1,000 output tokens). The first attempt
    # streams 3,000 characters (about 1,000 tokens, $0.015) and breaks off: a retry could pass $0.03.
    api.stream_error("x" * 3000, "overloaded_error")
    api.reply(FIX)

    result = cli("--max-tokens", "1000", "--max-cost", "0.03", "--json")

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert api.pending == 1
    assert "attempt 1 of 10 failed" in result.stderr and "stopped before the next request" in result.stderr
    (call,) = json.loads(result.stdout)["calls"]
    assert (call["requests"], call["retries"]) == (1, 0)
    assert call["usage"]["output_tokens"] == 1000
    assert call["cost_usd"] == pytest.approx((12 * 3 + 1000 * 15) / 1e6)


def test_max_cost_counts_failed_attempts_before_a_continuation(project: Project, api: FakeAPI, cli) -> None:
    # A request's worst case is about $0.022. A broken attempt (about 500 output tokens, $0.0075), then
    # an answer cut off (as much): a continuation could take the $0.015 spent over $0.035.
    api.stream_error("x" * 1500, "overloaded_error")
    api.reply("^^^fixed.txt\nfix", stop_reason="max_tokens", usage={"input_tokens": 12, "output_tokens": 500})

    result = cli("--max-tokens", "1000", "--max-cost", "0.035")

    assert result.exit_code == 3
    assert len(api.requests) == 2
    assert "not continuing the cut-off answer" in result.stderr
    assert "$0.0151 is already spent" in result.stderr


def test_max_cost_stops_a_continuation_and_the_cut_off_answer_is_refused(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^fixed.txt\nfix", stop_reason="max_tokens", usage={"input_tokens": 10_000, "output_tokens": 1000})
    api.reply("ed\n^^^end\n")

    result = cli("--max-tokens", "1000", "--max-cost", "0.06")

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "not continuing the cut-off answer" in result.stderr
    assert "still cut off" in logged(project)["01-refused.txt"]
    assert not (project.root / "fixed.txt").exists()


def test_max_cost_needs_a_price(project: Project, api: FakeAPI, cli) -> None:
    result = cli("--model", "claude-unpriced-1", "--max-cost", "5")

    assert result.exit_code == 2
    assert "--max-cost needs a price for claude-unpriced-1" in result.stderr
    assert api.requests == []


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ("max_cost = 0\n", "max_cost"),
        ("max_cost = -1.5\n", "max_cost"),
        ('prompt_order = "random"\n', "must be one of spec, cache"),
        ("retry_attempts = 0\n", "retry_attempts"),
        ("retry_time = 0\n", "retry_time"),
        ("request_timeout = -1\n", "request_timeout"),
        ("retry_wait_cap = -1\n", "retry_wait_cap"),
        ('provider = "openai"\n', "name the server's model with --model"),
    ],
)
def test_bad_transport_settings_name_their_source(tmp_path: Path, config: str, fragment: str) -> None:
    (tmp_path / "agent-config").mkdir()
    (tmp_path / "agent-config" / "config.toml").write_text(config)
    with pytest.raises(SetupError) as caught:
        load_settings(tmp_path, env={})
    assert fragment in str(caught.value)
    assert "config file" in str(caught.value)
