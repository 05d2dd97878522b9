import sys
from pathlib import Path

# The engine contract checks are Parlour's (tests/engine_contract.py in the repository this example
# lives in): a game package outside it would copy that file beside its tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
