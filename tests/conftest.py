import sys
from pathlib import Path

# tests import their helpers (schema_registry) as top-level modules
sys.path.insert(0, str(Path(__file__).parent))

import pytest


@pytest.fixture(autouse=True)
def _parse_line_starts_afresh() -> None:
    """`parse_line` and the block reader learn from the lines they read (a writer's unknown
    keys, which form to try first): each test starts from nothing learned, whatever ran
    before."""
    try:
        from overbrainer_contract import batch, parse_line
    except ImportError:  # a session without the package (the schema's own tests)
        return
    parse_line.__globals__["KEYSETS"].forget()
    batch.forget()
