"""The generated models and the public API: a real tagged union, the names exported."""

from __future__ import annotations

import msgspec
import overbrainer_contract
from msgspec.inspect import StructType, UnionType, type_info
from overbrainer_contract import (
    METRICS_ENV,
    PLUGIN_CLASS,
    PLUGIN_FILE,
    SNAPSHOT_ENV,
    SNAPSHOT_FILE,
    SNAPSHOT_REQUEST,
    Begin,
    End,
    Eval,
    Log,
    MetricLine,
    Stage,
)


def test_the_generated_union_is_tagged_on_event_with_unique_tags() -> None:
    union = type_info(MetricLine)
    assert isinstance(union, UnionType)
    tags = {}
    for member in union.types:
        assert isinstance(member, StructType)
        assert member.tag_field == "event"
        tags[member.tag] = member.cls
    assert tags == {"begin": Begin, "log": Log, "stage": Stage, "eval": Eval, "end": End}


def test_msgspec_decodes_the_union_by_its_tag() -> None:
    line = msgspec.json.decode(b'{"step":2,"time":1,"event":"end"}', type=MetricLine)
    assert line == End(time=1.0, step=2)


def test_the_constants_are_the_reference_constants() -> None:
    assert PLUGIN_FILE == "overbrainer_metrics.py"
    assert PLUGIN_CLASS == "overbrainer_metrics.OverbrainerMetricsPlugin"
    assert (METRICS_ENV, SNAPSHOT_ENV) == ("OVERBRAINER_METRICS", "OVERBRAINER_SNAPSHOT")
    assert (SNAPSHOT_REQUEST, SNAPSHOT_FILE) == ("snapshot.request", "snapshot.json")


def test_all_names_are_exported_and_documented() -> None:
    for name in overbrainer_contract.__all__:
        assert hasattr(overbrainer_contract, name), name
    for name in ("parse_line", "dump_line", "mark", "Pace", "ParseError"):
        assert getattr(overbrainer_contract, name).__doc__, name
