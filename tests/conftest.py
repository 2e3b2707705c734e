import sys
from pathlib import Path

# tests import their helpers (schema_registry) as top-level modules
sys.path.insert(0, str(Path(__file__).parent))
