"""The schemas themselves: valid 2020-12, versioned, documented, resolvable, and the
constants document valid against its own schema."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from overbrainer_contract import CONTRACT, SNAPSHOT_ON_SIGTERM_ENV, VERSION
from overbrainer_contract.contract import constants
from overbrainer_contract.contract.constants import schema_dir
from overbrainer_contract.contract.schemas import load_schema, schema_paths
from overbrainer_contract.files import sidefile
from schema_registry import registry, validator

NAMES = sorted(schema_paths())
U64_MAX = 18446744073709551615


def test_every_schema_of_the_contract_is_there() -> None:
    assert NAMES == [
        "check-report",
        "check-total",
        "contract",
        "job-stage",
        "metrics-line",
        "snapshot",
        "snapshot-request",
        "status-report",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_2020_12(name: str) -> None:
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", NAMES)
def test_schema_has_versioned_id_title_and_description(name: str) -> None:
    schema = load_schema(name)
    assert schema["$id"] == f"https://overbrainer.dev/contract/{VERSION}/{name}.schema.json"
    assert schema["title"]
    assert schema["description"]


def _walk(node: object, path: str = "#"):  # type: ignore[no-untyped-def]
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


@pytest.mark.parametrize("name", NAMES)
def test_every_ref_resolves(name: str) -> None:
    schema = load_schema(name)
    resolver = registry().resolver(base_uri=schema["$id"])
    refs = [node["$ref"] for _, node in _walk(schema) if "$ref" in node]
    for ref in refs:
        assert resolver.lookup(ref).contents is not None, ref


def test_u64_is_bounded_to_u64_max() -> None:
    u64 = load_schema("metrics-line")["$defs"]["U64"]
    assert (u64["type"], u64["minimum"], u64["maximum"]) == ("integer", 0, U64_MAX)
    check = validator("metrics-line")
    line = {"event": "end", "time": 1.0, "step": U64_MAX}
    assert check.is_valid(line)
    assert not check.is_valid({**line, "step": U64_MAX + 1})
    assert not check.is_valid({**line, "step": -1})


def test_metrics_line_is_a_tagged_union_on_event() -> None:
    schema = load_schema("metrics-line")
    assert schema["discriminator"] == {"propertyName": "event"}
    tags = []
    for ref in schema["oneOf"]:
        variant = schema["$defs"][ref["$ref"].rsplit("/", 1)[1]]
        assert "event" in variant["required"]
        tags.append(variant["properties"]["event"]["const"])
    assert tags == ["begin", "log", "stage", "eval", "end"]
    # a duplicated tag makes generators fall back to a plain union
    assert len(set(tags)) == len(tags)


def test_what_json_schema_cannot_say_is_in_comments() -> None:
    comment = load_schema("metrics-line")["$comment"]
    for fact in ("finite", "fraction or exponent", "twice", "unknown fields are ignored"):
        assert fact in comment


def test_descriptions_carry_the_reference_doc_comments() -> None:
    defs = load_schema("metrics-line")["$defs"]
    assert defs["Begin"]["description"] == "Training started: the plugin is loaded."
    assert defs["Eval"]["properties"]["step"]["description"] == (
        "Prediction steps done in this evaluation, from 1."
    )
    assert defs["Log"]["properties"]["eval_loss"]["description"] == (
        "Loss on `data/eval.jsonl`, on evaluation lines."
    )


def test_contract_document_is_valid_and_is_what_the_package_exports() -> None:
    document = json.loads((schema_dir() / "contract.json").read_text(encoding="utf-8"))
    validator("contract").validate(document)
    assert document["version"] == VERSION == CONTRACT.version
    assert document["plugin"]["qualified_name"] == (
        f"{document['plugin']['module']}.{document['plugin']['class']}"
    )
    assert document["plugin"]["file"] == f"{document['plugin']['module']}.py"
    # the values the reference hard-codes
    assert document["env"]["metrics"] == "OVERBRAINER_METRICS"
    assert document["env"]["snapshot"] == "OVERBRAINER_SNAPSHOT"
    # contract 1.1.0: the opt-in preemption snapshot (not in the reference)
    assert document["env"]["snapshot_on_sigterm"] == SNAPSHOT_ON_SIGTERM_ENV
    assert SNAPSHOT_ON_SIGTERM_ENV == "OVERBRAINER_SNAPSHOT_ON_SIGTERM"
    assert set(document["env"]) == {"metrics", "snapshot", "snapshot_on_sigterm"}
    assert document["files"]["snapshot_request"] == "snapshot.request"
    assert document["files"]["snapshot"] == "snapshot.json"
    # contract 1.2.0: the most bytes each side file may hold, one source for every reader
    assert set(document["max_bytes"]) <= set(document["files"])
    assert document["max_bytes"] == {
        "snapshot_request": constants.REQUEST_LIMIT,
        "snapshot": constants.PROOF_LIMIT,
    }
    assert (sidefile.REQUEST_LIMIT, sidefile.PROOF_LIMIT) == (
        constants.REQUEST_LIMIT,
        constants.PROOF_LIMIT,
    )


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("", True),
        ("manual", True),
        ("manual\n", True),
        ("  preempt-2 \r\n", True),
        ("two words", False),
        ("a" * 64, True),
        ("a" * 65, False),
        ("naïve", False),
        ("why?", False),
    ],
)
def test_snapshot_request_is_one_word_or_nothing(text: str, valid: bool) -> None:
    assert validator("snapshot-request").is_valid(text) is valid


def test_snapshot_proof() -> None:
    check = validator("snapshot")
    proof = {"checkpoint": "out/checkpoint-12", "step": 12, "time": 1.5, "reason": "manual"}
    assert check.is_valid(proof)
    assert check.is_valid({**proof, "reason": None})
    assert not check.is_valid({**proof, "reason": "two words"})
    assert not check.is_valid({k: v for k, v in proof.items() if k != "reason"})
    assert not check.is_valid({**proof, "step": 1.5})


def test_job_stages() -> None:
    assert load_schema("job-stage")["enum"] == ["train", "merge", "export", "compare"]


def test_id_version_is_semver() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
