"""docs/fleets.md's examples, checked offline: the GitHub Actions matrix against GitHub's workflow schema
(the one check-jsonschema ships), the Kubernetes ConfigMap and Indexed Job against the v1.33.0 API
schemas vendored in tests/fixtures/schemas (strict: an unknown or misspelt field is an error) and against
the API server's own rules the schemas do not carry, the exit codes they name against code_commit/exits.py,
and the pod's script run for real with a stand-in code-commit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from ruamel.yaml import YAML

from code_commit.exits import BY_CODE, EXIT, rows_for

from support import git

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "fleets.md").read_text()
SCHEMAS = ROOT / "tests" / "fixtures" / "schemas" / "kubernetes-v1.33.0"
MATRIX_SECTION = "## A GitHub Actions matrix over repositories"
JOB_SECTION = "## A Kubernetes Indexed Job"
MATRIX_LIMIT = 256  # jobs a workflow run's matrix may make (GitHub's documented limit)

# The policy, by meaning: the codes are exits.py's. A decided outcome is never retried (the same
# question about the same tree); the others are worth another attempt.
DECIDED = {
    EXIT.BUILD_FAILS,
    EXIT.BUILD_BLOCKED,
    EXIT.BUILD_CHANGED_TESTS,
    EXIT.NEEDS_HUMAN,
    EXIT.SETUP,
    EXIT.TIMEOUT,
    EXIT.REJECTED,
    EXIT.RESTORE_FAILED,
    EXIT.TAMPERED,
}
RETRIED = {EXIT.SERVICE, EXIT.LOCK_HELD, EXIT.INTERNAL, EXIT.INTERRUPTED}


def section(title: str) -> str:
    rest = PAGE.split(f"\n{title}\n", 1)[1]
    return rest.split("\n## ", 1)[0]


def yaml_block(title: str) -> str:
    (block,) = re.findall(r"```yaml\n(.*?)\n```", section(title), flags=re.DOTALL)
    return str(block) + "\n"


def documents(text: str) -> list[Any]:
    return list(YAML(typ="safe").load_all(text))


def manifests() -> dict[str, Any]:
    return {doc["kind"]: doc for doc in documents(yaml_block(JOB_SECTION))}


def named_codes(text: str, pattern: str) -> list[tuple[list[int], list[str]]]:
    """Each place `pattern` finds codes, with the outcome names its comment gives them."""
    return [
        ([int(code) for code in re.findall(r"\d+", codes)], names.split()) for codes, names in re.findall(pattern, text)
    ]


# ---- exit codes: one source, exits.py ----


def test_every_code_the_job_names_is_the_one_exits_py_declares_for_its_meaning() -> None:
    found = named_codes(yaml_block(JOB_SECTION), r"values: \[([\d, ]+)\]  # ([a-z_ ]+)")
    assert len(found) == 2, "both onExitCodes rules carry their outcome names"
    for codes, names in found:
        assert names == [BY_CODE[code].outcome for code in codes]


def test_the_job_never_retries_a_decided_outcome_and_retries_the_rest() -> None:
    rules = manifests()["Job"]["spec"]["podFailurePolicy"]["rules"]
    by_action = {rule["action"]: set(rule["onExitCodes"]["values"]) for rule in rules if "onExitCodes" in rule}
    assert by_action == {"FailIndex": DECIDED, "Count": RETRIED}
    # Every code a run can end with has its rule, but 0: a pod that succeeded never reaches the policy.
    assert {row.code for row in rows_for("run")} - {EXIT.OK} == DECIDED | RETRIED
    assert {EXIT.BUILD_FAILS, EXIT.BUILD_BLOCKED, EXIT.BUILD_CHANGED_TESTS, EXIT.NEEDS_HUMAN} <= DECIDED
    evictions = {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    assert rules[0] == evictions, "a pod the cluster ended is never counted, so its rule comes first"


def test_the_page_s_lists_of_decided_and_retried_codes_are_the_job_s() -> None:
    intro = PAGE.split("\n## ", 1)[0]
    decided = intro.split("**a decided outcome**", 1)[1].split("**worth a retry**", 1)[0]
    retried = intro.split("**worth a retry**", 1)[1].split("\n- 0:", 1)[0]
    assert {int(code) for code in re.findall(r"\b(\d+) \(", decided)} == DECIDED
    assert {int(code) for code in re.findall(r"\b(\d+) \(", retried)} == RETRIED


def test_every_code_the_workflow_names_is_the_one_exits_py_declares_for_its_meaning() -> None:
    found = named_codes(yaml_block(MATRIX_SECTION), r"exit-code == '(\d+)'  # ([a-z_]+)")
    assert found, "the retry names the code it retries"
    for codes, names in found:
        assert codes == [EXIT.SERVICE] and names == [BY_CODE[EXIT.SERVICE].outcome]


# ---- the GitHub Actions matrix ----


def test_the_matrix_workflow_is_valid_against_the_workflow_schema(tmp_path: Path) -> None:
    workflow = tmp_path / "fleet.yml"
    workflow.write_text(yaml_block(MATRIX_SECTION))
    checked = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_matrix_runs_every_repository_to_its_end_within_github_s_limit() -> None:
    (workflow,) = documents(yaml_block(MATRIX_SECTION))
    (job,) = workflow["jobs"].values()
    strategy = job["strategy"]
    assert strategy["fail-fast"] is False, "one repository's failure cancels no other"
    assert isinstance(strategy["max-parallel"], int) and strategy["max-parallel"] > 0
    assert 0 < len(strategy["matrix"]["repository"]) <= MATRIX_LIMIT
    runs = [step for step in job["steps"] if str(step.get("uses", "")).startswith("YOUR-ORG/code-commit@")]
    assert len(runs) == 2 and all(step.get("continue-on-error") is True for step in runs)
    assert runs[0]["with"] == runs[1]["with"], "the retry is the same run"
    assert runs[0]["with"]["sandbox"] == "require"
    last = job["steps"][-1]
    assert last["if"] == "always()" and "steps.again.outputs.exit-code" in last["env"]["CODE"]


# ---- the Kubernetes ConfigMap and Indexed Job ----


def validator(kind_file: str) -> Draft202012Validator:
    definitions = json.loads((SCHEMAS / "_definitions.json").read_text())
    registry: Registry[Any] = Registry().with_resource(definitions["$id"], Resource.from_contents(definitions))
    return Draft202012Validator(json.loads((SCHEMAS / kind_file).read_text()), registry=registry)


SCHEMA_FILES = {"ConfigMap": "configmap-v1.json", "Job": "job-batch-v1.json"}


def schema_errors(manifest: dict[str, Any]) -> list[str]:
    found = validator(SCHEMA_FILES[manifest["kind"]]).iter_errors(manifest)
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in found]


def api_errors(job: dict[str, Any]) -> list[str]:
    """The API server's validation of a Job's failure handling that the JSON schemas do not carry, each
    as the field's own description states it (the vendored _definitions.json)."""
    spec, pod = job["spec"], job["spec"]["template"]["spec"]
    rules = spec.get("podFailurePolicy", {}).get("rules", [])
    containers = {container["name"] for container in pod["containers"]}
    errors = []
    if (rules or "backoffLimitPerIndex" in spec) and pod.get("restartPolicy") != "Never":
        errors.append("podFailurePolicy and backoffLimitPerIndex need restartPolicy: Never")
    if "backoffLimitPerIndex" in spec and spec.get("completionMode") != "Indexed":
        errors.append("backoffLimitPerIndex needs completionMode: Indexed")
    if len(rules) > 20:
        errors.append("at most 20 rules")
    for rule in rules:
        if rule["action"] == "FailIndex" and "backoffLimitPerIndex" not in spec:
            errors.append("FailIndex needs backoffLimitPerIndex")
        on = rule.get("onExitCodes")
        if on is None:
            continue
        values = on["values"]
        if not 1 <= len(values) <= 255 or values != sorted(set(values)):
            errors.append(f"values must be 1 to 255, ordered, without duplicates: {values}")
        if on["operator"] == "In" and 0 in values:
            errors.append("value 0 cannot be used for the In operator")
        if on.get("containerName") not in containers:
            errors.append(f"containerName {on.get('containerName')} is no container of the pod")
    return errors


def test_the_configmap_and_the_job_are_valid_against_the_kubernetes_schemas() -> None:
    found = manifests()
    assert set(found) == {"ConfigMap", "Job"}
    for manifest in found.values():
        assert schema_errors(manifest) == [], manifest["kind"]
    assert api_errors(found["Job"]) == []


def test_the_checks_refuse_what_the_api_server_would() -> None:
    """The schema is strict and the API's own rules are checked: each mistake here is found."""
    job = manifests()["Job"]
    misspelt = json.loads(json.dumps(job))
    misspelt["spec"]["podFailurePolicy"]["rules"][1]["acton"] = "FailIndex"
    assert any("acton" in error for error in schema_errors(misspelt))
    wrong_type = json.loads(json.dumps(job))
    wrong_type["spec"]["completions"] = "three"
    assert schema_errors(wrong_type)
    for change, expected in [
        (lambda spec: spec["podFailurePolicy"]["rules"][1]["onExitCodes"]["values"].insert(0, 0), "value 0"),
        (lambda spec: spec["podFailurePolicy"]["rules"][2]["onExitCodes"]["values"].reverse(), "ordered"),
        (lambda spec: spec.pop("backoffLimitPerIndex"), "FailIndex needs"),
        (lambda spec: spec["template"]["spec"].update(restartPolicy="OnFailure"), "restartPolicy: Never"),
        (lambda spec: spec["podFailurePolicy"]["rules"][1]["onExitCodes"].update(containerName="x"), "containerName"),
    ]:
        broken = json.loads(json.dumps(job))
        change(broken["spec"])
        assert any(expected in error for error in api_errors(broken)), expected


def test_the_job_has_one_index_per_repository_and_the_pod_what_the_sandbox_needs() -> None:
    found = manifests()
    repositories = found["ConfigMap"]["data"]["repositories"].splitlines()
    spec = found["Job"]["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == len(repositories)
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    assert pod["hostUsers"] is False and container["securityContext"]["procMount"] == "Unmasked"
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert pod["automountServiceAccountToken"] is False


# ---- the pod's script, run ----


def the_pod_s_script(mounts: dict[str, Path]) -> str:
    """The container's script with each volume's mount path moved under the test's folder."""
    (container,) = manifests()["Job"]["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["/bin/sh", "-c"]
    (script,) = container["args"]
    moved = {mount["mountPath"] + "/": f"{mounts[mount['name']]}/" for mount in container["volumeMounts"]}
    return re.sub("|".join(map(re.escape, moved)), lambda match: moved[match.group()], str(script))


@pytest.mark.parametrize("index, code", [(0, EXIT.OK), (2, EXIT.SERVICE), (1, EXIT.NEEDS_HUMAN)])
def test_each_index_clones_its_own_repository_and_exits_with_the_run_s_code(
    tmp_path: Path, index: int, code: int
) -> None:
    """Three local repositories stand in for the ConfigMap's; a stand-in `code-commit` on PATH says
    where it ran, with what, and exits as told."""
    config = manifests()["ConfigMap"]["data"]
    mounts = {name: tmp_path / name for name in ("fleet", "work", "home", "tmp")}
    for folder in mounts.values():
        folder.mkdir()
    names = [f"repository-{n}" for n in range(3)]
    for name in names:
        origin = tmp_path / "origins" / name
        origin.mkdir(parents=True)
        (origin / "codeRollup.sh").write_text("#!/bin/sh\necho rollup > agent-config/codeRollup.txt\n")
        (origin / "codeRollup.sh").chmod(0o755)
        (origin / "NAME").write_text(name)
        git(origin, "init", "-q")
        git(origin, "add", "-A")
        git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (mounts["fleet"] / "repositories").write_text("".join(f"file://{tmp_path}/origins/{n}\n" for n in names))
    (mounts["fleet"] / "query").write_text(config["query"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "code-commit").write_text(
        '#!/bin/sh\n{ pwd; cat NAME; echo; cat agent-config/query.txt; cat agent-config/codeRollup.txt; echo "$@"; }'
        f' > "{tmp_path}/ran"\nexit {code}\n'
    )
    (bin_dir / "code-commit").chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    env["JOB_COMPLETION_INDEX"] = str(index)
    done = subprocess.run(["/bin/sh", "-c", the_pod_s_script(mounts)], env=env, capture_output=True, text=True)
    assert done.returncode == code, done.stderr
    where, name, *rest = (tmp_path / "ran").read_text().splitlines()
    assert where == str(mounts["work"] / "repository") and name == names[index]
    assert rest == [*config["query"].splitlines(), "rollup", "--json --timeout 3600 --max-cost 5"]


def test_the_matrix_gives_the_action_only_inputs_it_declares_and_reads_outputs_it_sets() -> None:
    action = YAML(typ="safe").load((Path(__file__).resolve().parents[2] / "action.yml").read_text())
    (workflow,) = documents(yaml_block(MATRIX_SECTION))
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    ours = [step for step in steps if "/code-commit@" in step.get("uses", "")]
    assert ours, "the matrix uses the repository's action"
    for step in ours:
        assert set(step.get("with", {})) <= set(action["inputs"]), step["with"]
    read = re.findall(r"steps\.\w+\.outputs\.([\w-]+)", yaml_block(MATRIX_SECTION))
    assert read and set(read) <= set(action["outputs"])
