"""The diagnosis of a failed build against a corpus of real failing builds (tests/builds/corpus/,
README.md there): it names the sandbox's doing, with the right fix, in every build the sandbox kept
from running, and never fires on an ordinary failure, look-alikes included.

The corpus was produced in a reproduction of code-commit's sandbox with a simulated home folder,
/tmp/research-sbx/home, shown read-only (as a real home is); each case here gives the diagnosis the
same view, and the host facts the case had (which command existed where, which file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_commit.builds import diagnosis
from code_commit.builds.diagnosis import Diagnosis, Host, diagnose
from code_commit.sandbox.bubblewrap import SandboxPolicy

CORPUS = Path(__file__).parent / "corpus"
LAB = Path("/tmp/research-sbx")
HOME = LAB / "home"
PATH = "/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin"


@dataclass
class Case:
    """A corpus file's setting: the project, what the host had, and what the diagnosis must say."""

    kind: str | None = None  # None: an ordinary failure, never diagnosed
    fix: str = ""  # a piece of the fix it must name
    root: str = "project"
    network: bool = False
    env: Mapping[str, str] = field(default_factory=dict)
    commands: Mapping[str, str] = field(default_factory=dict)  # found on the host's PATH
    existing: tuple[str, ...] = ()  # paths that exist on the host
    script: str = ""  # build.sh's commands


SANDBOX = {
    "sandbox_capdrop_tar_chown": Case(diagnosis.CAPABILITY, "TAR_OPTIONS=--no-same-owner"),
    "sandbox_cargo_home_tmp_offline": Case(
        diagnosis.NETWORK, "`cargo fetch`", env={"CARGO_HOME": "/tmp/cargo-home", "CARGO_NET_OFFLINE": "true"}
    ),
    "sandbox_cargo_index_no_network": Case(diagnosis.NETWORK, "`cargo fetch`"),
    "sandbox_cargo_offline_new_dependency": Case(diagnosis.NETWORK, "`cargo fetch`"),
    "sandbox_cargo_registry_src_readonly": Case(diagnosis.READ_ONLY, "`cargo fetch`"),
    "sandbox_cargo_target_dir_readonly": Case(
        diagnosis.READ_ONLY, "unset CARGO_TARGET_DIR", env={"CARGO_TARGET_DIR": f"{HOME}/.cache/cargo-target"}
    ),
    "sandbox_corepack_download_no_network": Case(
        diagnosis.NETWORK, "`corepack install`", env={"COREPACK_HOME": "/tmp/corepack"}
    ),
    "sandbox_corepack_home_readonly": Case(diagnosis.READ_ONLY, "`corepack install`"),
    "sandbox_corepack_latest_no_network": Case(diagnosis.NETWORK, "packageManager"),
    "sandbox_fresh_clone_no_venv": Case(
        diagnosis.MISSING, "python3 -m venv .venv", root="py-fresh", script=".venv/bin/python -m pytest -q"
    ),
    "sandbox_go_build_cache_readonly": Case(diagnosis.READ_ONLY, "GOCACHE=/tmp/go-build"),
    "sandbox_maven_offline_missing_artifact": Case(diagnosis.NETWORK, "mvn -o", env={"HOME": "/root"}),
    "sandbox_maven_online_new_dependency": Case(diagnosis.READ_ONLY, "mvn -o", env={"HOME": "/root"}),
    "sandbox_maven_online_readonly_repo": Case(diagnosis.READ_ONLY, "mvn -o", env={"HOME": "/root"}),
    "sandbox_npm_cache_readonly_with_network": Case(diagnosis.READ_ONLY, "`npm ci`", network=True),
    "sandbox_npm_install_no_network": Case(diagnosis.NETWORK, "`npm ci`"),
    "sandbox_npm_install_no_network_retries0": Case(diagnosis.NETWORK, "`npm ci`"),
    "sandbox_npm_install_nolock_no_network": Case(diagnosis.NETWORK, "sandbox_network = true"),
    "sandbox_npm_install_offline_not_cached": Case(diagnosis.NETWORK, "`npm ci`"),
    "sandbox_pip_build_deps_no_network": Case(diagnosis.NETWORK, "sandbox_network = true"),
    "sandbox_pip_install_no_network": Case(diagnosis.NETWORK, ".venv/bin/pip install"),
    "sandbox_pip_install_no_network_retries0": Case(diagnosis.NETWORK, ".venv/bin/pip install"),
    "sandbox_pnpm_no_network": Case(
        diagnosis.NETWORK, "`pnpm install`", env={"npm_config_store_dir": "/tmp/pnpm-store"}
    ),
    "sandbox_pnpm_store_readonly": Case(diagnosis.READ_ONLY, "`pnpm install`"),
    "sandbox_pnpm_store_switch_no_tty": Case(diagnosis.TOOL_STATE, "`pnpm install`", network=True),
    "sandbox_protected_git_readonly": Case(diagnosis.PROTECTED, "`npm version`", root="prot-git"),
    "sandbox_protected_gitignore_readonly": Case(diagnosis.PROTECTED, "out of build.sh", root="prot-ignore"),
    "sandbox_tool_under_tmp_hidden": Case(
        diagnosis.HIDDEN,
        'sandbox_readable = ["/tmp/research-sbx/tmp-tools"]',
        env={"PATH": f"/tmp/research-sbx/tmp-tools:{PATH}"},
        commands={"pnpm": "/tmp/research-sbx/tmp-tools/pnpm"},
        existing=("/tmp/research-sbx/tmp-tools/pnpm",),
        script="pnpm test",
    ),
    "sandbox_uv_cache_readonly": Case(diagnosis.READ_ONLY, "UV_CACHE_DIR="),
    "sandbox_uv_no_network": Case(diagnosis.NETWORK, "`uv sync`", env={"UV_CACHE_DIR": "/tmp/uv-cache"}),
    "sandbox_uv_offline_not_in_cache": Case(
        diagnosis.NETWORK, "`uv sync`", env={"UV_CACHE_DIR": "/tmp/uv-cache", "UV_OFFLINE": "1"}
    ),
    "sandbox_venv_under_tmp_hidden": Case(
        diagnosis.HIDDEN,
        'sandbox_readable = ["/tmp/research-sbx/tmp-venv"]',
        root="py-tmpvenv",
        existing=("/tmp/research-sbx/tmp-venv/bin/python",),
        script="/tmp/research-sbx/tmp-venv/bin/python -m pytest -q",
    ),
    "sandbox_yarn_berry_cache_readonly_with_network": Case(diagnosis.READ_ONLY, "`yarn install`", network=True),
    "sandbox_yarn_berry_no_network": Case(diagnosis.NETWORK, "`yarn install`"),
    "sandbox_yarn_classic_cache_not_writable": Case(diagnosis.NETWORK, "`yarn install`"),
}
ORDINARY = {
    "ordinary_lookalike_command_not_found": Case(script="shellcheck build.sh"),
    "ordinary_lookalike_permission_denied": Case(existing=("/tmp/research-sbx/project/scripts/check.sh",)),
    "ordinary_pytest_module_not_found": Case(existing=("/tmp/research-sbx/project/.venv/bin/python",)),
}


def corpus(prefix: str) -> list[str]:
    return sorted(path.stem for path in CORPUS.glob(f"{prefix}*.txt"))


def read(name: str) -> tuple[str, int]:
    """A corpus file's output (without its annotation line) and the build's exit code."""
    annotation, output = (CORPUS / f"{name}.txt").read_text().split("\n", 1)
    code = annotation.partition("| exit ")[2].split(",")[0]
    return output, int(code) if code.isdigit() else 1


def view(case: Case) -> tuple[SandboxPolicy, Host]:
    root = LAB / case.root
    env = {"HOME": str(HOME), "PATH": PATH, **case.env}
    policy = SandboxPolicy(
        "/usr/bin/bwrap",
        root,
        case.network,
        writable=(),
        read_only=(root / ".git", root / ".gitignore", root / "build.sh"),
        hidden=(root / "agent-config",),
        readable=(HOME,),  # the research's simulated home, shown read-only as a real one is
    )
    host = Host(
        root, env, f"#!/bin/sh\n{case.script}\n", lambda name, path: case.commands.get(name),
        lambda path: path in case.existing, lambda path: path,
    )  # fmt: skip
    return policy, host


def test_the_corpus_is_the_one_the_tests_describe() -> None:
    assert set(corpus("sandbox_")) == set(SANDBOX), "each sandbox-caused build has its expected diagnosis"
    assert len(corpus("ordinary_")) >= 29 and set(ORDINARY) <= set(corpus("ordinary_"))


@pytest.mark.parametrize("name", sorted(SANDBOX))
def test_a_build_the_sandbox_kept_from_running_is_diagnosed_with_its_fix(name: str) -> None:
    case = SANDBOX[name]
    output, code = read(name)

    found = diagnose(output, code, *view(case))

    assert found is not None, f"{name}: not diagnosed"
    assert found.kind == case.kind, found
    assert case.fix in found.fix, found.fix
    assert found.evidence and found.evidence.removesuffix(" [...]") in output, "it quotes the line it read"
    assert found.subject in found.cause or found.subject in found.line() + found.evidence


@pytest.mark.parametrize("name", corpus("ordinary_"))
def test_an_ordinary_failure_is_never_diagnosed_in_the_sandbox_or_out_of_it(name: str) -> None:
    case = ORDINARY.get(name, Case())
    output, code = read(name)
    policy, host = view(case)

    assert diagnose(output, code, policy, host) is None
    assert diagnose(output, code, None, host) is None


def test_the_line_says_the_cause_then_the_fix() -> None:
    output, code = read("sandbox_tool_under_tmp_hidden")

    found = diagnose(output, code, *view(SANDBOX["sandbox_tool_under_tmp_hidden"]))

    assert isinstance(found, Diagnosis)
    assert found.line() == (
        "the build could not find pnpm: it is at /tmp/research-sbx/tmp-tools/pnpm on this machine, under /tmp, which "
        "the sandbox replaces with an empty one of its own. Fix: move it out of /tmp, or set sandbox_readable = "
        '["/tmp/research-sbx/tmp-tools"] in agent-config/config.toml, which shows that folder to builds read-only'
    )


# What the model's code may print is checked against the host and the policy: a forged line is no cause.


def test_a_network_error_with_the_network_on_is_not_the_sandboxs_doing() -> None:
    output, code = read("sandbox_npm_install_no_network")
    case = SANDBOX["sandbox_npm_install_no_network"]

    assert diagnose(output, code, *view(Case(network=True, **_without(case, "network")))) is None


def test_a_command_not_found_that_the_host_lacks_too_is_ordinary() -> None:
    output, code = read("sandbox_tool_under_tmp_hidden")

    assert diagnose(output, code, *view(Case(script="pnpm test"))) is None


def test_a_command_found_on_the_host_where_the_sandbox_shows_it_is_not_hidden() -> None:
    output, code = read("sandbox_tool_under_tmp_hidden")
    visible = Case(commands={"pnpm": "/usr/local/bin/pnpm"}, existing=("/usr/local/bin/pnpm",), script="pnpm test")

    assert diagnose(output, code, *view(visible)) is None


def test_a_tool_under_tmp_shown_by_sandbox_readable_is_not_hidden() -> None:
    output, code = read("sandbox_tool_under_tmp_hidden")
    policy, host = view(SANDBOX["sandbox_tool_under_tmp_hidden"])
    shown = SandboxPolicy(**{**vars(policy), "readable": (*policy.readable, LAB / "tmp-tools")})

    assert diagnose(output, code, shown, host) is None


def test_a_read_only_error_on_a_path_the_build_may_write_is_not_the_sandboxs_doing() -> None:
    output, code = read("sandbox_uv_cache_readonly")
    policy, host = view(SANDBOX["sandbox_uv_cache_readonly"])
    writable = SandboxPolicy(**{**vars(policy), "writable": (HOME / ".cache" / "uv",)})

    assert diagnose(output, code, writable, host) is None


def test_a_read_only_error_outside_the_home_and_the_tools_folders_is_ordinary() -> None:
    output = "OSError: [Errno 30] Read-only file system: '/srv/data/out.txt'\n"

    assert diagnose(output, 1, *view(Case())) is None


def test_a_missing_program_is_one_build_sh_names_not_one_a_test_prints() -> None:
    output = "./build.sh: 3: .venv/bin/python: not found\n"
    forged = "sh: 1: .venv/bin/python: not found\n"

    assert diagnose(output, 127, *view(Case(script="make test"))) is None, "build.sh does not name it"
    assert diagnose(forged, 127, *view(Case(script=".venv/bin/python -m pytest"))) is None, "not build.sh's line"
    assert diagnose(output, 127, *view(Case(script=".venv/bin/python -m pytest", existing=(".venv",)))) is not None


def test_without_the_sandbox_only_a_missing_program_is_diagnosed() -> None:
    case = SANDBOX["sandbox_fresh_clone_no_venv"]
    output, code = read("sandbox_fresh_clone_no_venv")
    policy, host = view(case)

    assert diagnose(output, code, None, host) == diagnose(output, code, policy, host)
    for name in ("sandbox_npm_install_no_network", "sandbox_uv_cache_readonly", "sandbox_tool_under_tmp_hidden"):
        output, code = read(name)
        assert diagnose(output, code, None, view(SANDBOX[name])[1]) is None, name


def test_a_passing_build_is_never_diagnosed() -> None:
    output, _ = read("sandbox_npm_install_no_network")

    assert diagnose(output, 0, *view(SANDBOX["sandbox_npm_install_no_network"])) is None


def test_the_earliest_cause_is_the_one_named() -> None:
    network, _ = read("sandbox_npm_install_no_network")
    hidden, _ = read("sandbox_tool_under_tmp_hidden")
    case = SANDBOX["sandbox_tool_under_tmp_hidden"]

    assert diagnose(hidden + network, 1, *view(case)).kind == diagnosis.HIDDEN  # type: ignore[union-attr]
    assert diagnose(network + hidden, 1, *view(case)).kind == diagnosis.NETWORK  # type: ignore[union-attr]


def test_long_output_costs_work_bounded_by_its_size() -> None:
    """Each line is read up to MAX_LINE characters: a marker past that is not seen."""
    line = "x" * diagnosis.MAX_LINE + " EAI_AGAIN\n"
    output = line * 300 + "npm error code EAI_AGAIN registry.npmjs.org\n"

    found = diagnose(output, 1, *view(Case()))

    assert found is not None and found.evidence == "npm error code EAI_AGAIN registry.npmjs.org"


def _without(case: Case, name: str) -> dict[str, object]:
    return {key: value for key, value in vars(case).items() if key != name}


@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(
        st.sampled_from(sorted(SANDBOX) + corpus("ordinary_")).map(lambda name: read(name)[0])
        | st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
        max_size=6,
    ),
    network=st.booleans(),
)
def test_any_output_gives_a_diagnosis_or_none_never_an_error(pieces: list[str], network: bool) -> None:
    """Spliced real outputs and arbitrary text: a Diagnosis whose evidence is a line of the output,
    or None; never an exception."""
    output = "\n".join(pieces)
    policy, host = view(Case(network=network))

    found = diagnose(output, 1, policy, host)

    assert found is None or found.evidence.removesuffix(" [...]") in output
