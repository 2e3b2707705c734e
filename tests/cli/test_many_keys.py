"""A line of very many scalar keys is read in time about linear in their count, by `check`,
`status` and `export`: each case runs in a child process under a hang guard (`HANG`) far
beyond the time a linear reading takes (a second or a few), where a reading that looks each
key up among the keys before it (a step quadratic in the count) takes minutes at these
counts. The keys repeated keep their meaning: the last value is read, at its last place, and
each repetition of a key still held is one warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cli_samples import python_env

HANG = 60.0
"""Seconds a child may take: a hang guard, each needs a few at most."""

KEYS = 300_000
"""Distinct keys of the line: 4.5e10 comparisons of keys for a quadratic reading."""

REPEATED = 1_000
"""Keys given a second time at the end of the line, each with a value of its own."""


def _run_of_many_keys(tmp_path: Path) -> Path:
    """A run whose log line holds `KEYS` keys `k0`, `k1`... of value its number, then the
    first `REPEATED` of them again, each of value minus (its number + 1)."""
    first = ",".join(f'"k{at}":{at}' for at in range(KEYS))
    again = ",".join(f'"k{at}":{-(at + 1)}' for at in range(REPEATED))
    log = (
        '{"event":"log","time":2.0,"step":1,"epoch":0.1,"max_steps":10,"loss":1.0,'
        '"eval_loss":null,"learning_rate":0.1,"grad_norm":1.0,'
        f'"scalars":{{{first},{again}}}}}'
    )
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.jsonl").write_text(
        '{"event":"begin","time":1.0,"max_steps":10}\n' + log + "\n", encoding="utf-8"
    )
    return run


def _child(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=python_env(),
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )


def test_check_and_status_read_many_keys_in_linear_time(tmp_path: Path) -> None:
    _run_of_many_keys(tmp_path)
    cli = ("-m", "overbrainer_contract")
    checked = _child(*cli, "check", "--max-errors", "1", "run", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert f"0 errors, {REPEATED:,} warnings" in checked.stdout
    last, kept = f"k{REPEATED - 1}", f"k{REPEATED}"
    metrics = [f"--metric={key}" for key in ("k0", last, kept)]
    status = _child(*cli, "status", *metrics, "run", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    shown = {
        words[0]: words[1:]
        for words in (line.split() for line in status.stdout.splitlines())
        if words
    }
    assert shown["k0"] == ["-1"]
    assert shown[last] == [str(-REPEATED)]
    assert shown[kept] == [str(REPEATED)]


SPREAD = """
import numpy as np
from overbrainer_contract.table.reader import _spread

keys, rows = {keys}, 2
# row 0 holds every key, its value the key's number; row 1 every third key, its value minus
entry_rows = np.concatenate([np.zeros(keys, "<u4"), np.ones(len(range(0, keys, 3)), "<u4")])
entry_keys = np.concatenate([np.arange(keys, dtype="<u4"), np.arange(0, keys, 3, dtype="<u4")])
values = np.concatenate([np.arange(keys, dtype="<f8"), -np.arange(0, keys, 3, dtype="<f8")])
names = [f"k{{at}}" for at in range(keys)]
wanted = names[::-1] + ["absent"]
columns = _spread(
    rows, (entry_rows.tobytes(), entry_keys.tobytes(), (values.tobytes(), None, 0), names), wanted
)
assert len(columns) == keys + 1
for at in (0, 1, 2, 3, keys - 1):
    expected = [float(at), -float(at) if at % 3 == 0 else None]
    assert columns[keys - 1 - at].to_pylist() == expected, (at, columns[keys - 1 - at])
assert columns[-1].to_pylist() == [None, None]
print("spread")
"""


def test_the_wide_table_spreads_many_keys_in_linear_time(tmp_path: Path) -> None:
    """The wide export's columns of a batch of 300,000 keys: each entry found once, not once
    per key."""
    spread = _child("-c", SPREAD.format(keys=KEYS), cwd=tmp_path)
    assert spread.stdout == "spread\n", spread.stderr


NAMES = """
import itertools
from overbrainer_contract.table.schema import wide_names

# every way of writing a 17-letter key in upper and lower case: one folded key 2**17 times
keys = sorted("".join(each) for each in itertools.product("aA", repeat=17))
names = wide_names(keys)
assert names[0] == keys[0]
assert names[1:] == [f"{{key}}#{{at}}" for at, key in enumerate(keys[1:], 2)]
print("names")
"""


def test_wide_names_of_many_keys_folding_alike_in_linear_time(tmp_path: Path) -> None:
    """2**17 keys folding to one: the n-th named `#n` after trying no number twice (trying
    every number from 2 again for each key is 2**33 tries)."""
    names = _child("-c", NAMES.format(), cwd=tmp_path)
    assert names.stdout == "names\n", names.stderr
