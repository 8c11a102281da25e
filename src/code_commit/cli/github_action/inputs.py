"""The action's inputs as its steps receive them, and the code-commit command line made from them.

The runner never writes an input into a script: action.yml hands each step the inputs it needs in
environment variables (`input_variable`), and this module reads them. A query, a model name or extra
arguments holding `$(...)`, backticks or newlines are text here, passed to code-commit as one argv
entry each, never through a shell.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from code_commit.config.settings import ENV_PREFIX, Settings, flag_name
from code_commit.credentials import CLOUD_PROVIDERS, KEY_ENV

# The inputs that are code-commit settings with a flag of a run, by the setting's name: the input is
# the name with dashes (`max-cost`), the flag the setting's own (`--max-cost`).
_SETTING_INPUTS = ("provider", "model", "max_cost", "tests", "sandbox", "timeout")
# Every input action.yml declares, in its order (tests/action checks the two agree).
INPUTS = (
    "query",
    "query-file",
    *(name.replace("_", "-") for name in _SETTING_INPUTS),
    "api-key",
    "args",
    "working-directory",
    "install",
    "artifact-name",
)
_JSON_FLAG = "--json"  # the record on stdout: what the action reads
# What one step of the action tells the next, beside the inputs (action.yml's `env:` sets them).
FOLDER_VARIABLE = "ACTION_FOLDER"  # the action's own folder under RUNNER_TEMP (the install step makes it)
PROGRAM_VARIABLE = "ACTION_PROGRAM"  # the code-commit the install step installed or found
ARTIFACT_URL_VARIABLE = "ACTION_ARTIFACT_URL"  # where upload-artifact put the run folder
STEP_VARIABLES = (FOLDER_VARIABLE, PROGRAM_VARIABLE, ARTIFACT_URL_VARIABLE)


class ActionSetupError(Exception):
    """An input the action cannot run code-commit with: a setup error (exit 2), nothing was sent."""


def input_variable(name: str) -> str:
    """The environment variable action.yml passes input `name` in: INPUT_MAX_COST."""
    return "INPUT_" + name.upper().replace("-", "_")


@dataclass(frozen=True)
class ActionInputs:
    query: str
    query_file: str
    settings: tuple[tuple[str, str], ...]  # (setting, value) for each setting input given
    api_key: str
    args: tuple[str, ...]
    working_directory: str
    install: bool
    artifact_name: str

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionInputs:
        def given(name: str) -> str:
            return env.get(input_variable(name), "")

        try:
            args = tuple(shlex.split(given("args")))
        except ValueError as exc:
            raise ActionSetupError(f"the `args` input cannot be split into arguments: {exc}") from None
        install = given("install").strip().lower() or "true"
        if install not in ("true", "false"):
            raise ActionSetupError(f"the `install` input is `true` or `false`, not {install!r}")
        settings = tuple(
            (name, given(name.replace("_", "-")).strip())
            for name in _SETTING_INPUTS
            if given(name.replace("_", "-")).strip()
        )
        return cls(
            query=given("query"),
            query_file=given("query-file").strip(),
            settings=settings,
            api_key=given("api-key").strip(),
            args=args,
            working_directory=given("working-directory").strip() or ".",
            install=install == "true",
            artifact_name=given("artifact-name").strip(),
        )

    def setting(self, name: str) -> str | None:
        return dict(self.settings).get(name)

    def effective(self, name: str, env: Mapping[str, str]) -> str:
        """The value setting `name` will have in the run, as far as the action can know it before:
        the input, else its CODE_COMMIT_ variable, else the setting's default."""
        default = next(f.default for f in dataclasses.fields(Settings) if f.name == name)
        return self.setting(name) or env.get(ENV_PREFIX + name.upper(), "").strip() or str(default)


def command(program: str, inputs: ActionInputs) -> list[str]:
    """code-commit's argv: the record as JSON, each setting input as its flag, then `args`. A flag
    given both ways is an error rather than a silent winner."""
    own = {flag_name(name): name.replace("_", "-") for name in _SETTING_INPUTS}
    for arg in inputs.args:
        flag = arg.split("=", 1)[0]
        if flag in own:
            raise ActionSetupError(f"`args` gives {flag}: give it as the `{own[flag]}` input instead")
    flags = [part for name, value in inputs.settings for part in (flag_name(name), value)]
    return [program, _JSON_FLAG, *flags, *inputs.args]


def child_environment(env: Mapping[str, str], inputs: ActionInputs) -> dict[str, str]:
    """code-commit's environment: the job's, without the action's own variables, and with the key
    (when the `api-key` input gives one) in the variable the provider reads it from, which
    code-commit keeps out of git, the sandbox and the build."""
    own = {input_variable(name) for name in INPUTS} | set(STEP_VARIABLES)
    child = {name: value for name, value in env.items() if name not in own}
    if inputs.api_key:
        provider = inputs.effective("provider", env)
        if provider in CLOUD_PROVIDERS:
            raise ActionSetupError(
                f"`api-key` is given, but {provider} takes the cloud's own credentials: authenticate with "
                "aws-actions/configure-aws-credentials or google-github-actions/auth before this action"
            )
        variable = KEY_ENV.get(provider)
        if variable is None:
            raise ActionSetupError(f"no key variable is known for provider {provider!r}")
        child[variable] = inputs.api_key
    return child
