"""``import qmc_orff`` stays cheap: the heavy, optional imports happen where they are used."""
import subprocess
import sys

SCRIPT = """
import sys
import qmc_orff
assert "numba" not in sys.modules and "sklearn" not in sys.modules, "import qmc_orff is not lazy"
for name in qmc_orff.__all__:
    getattr(qmc_orff, name)
assert "cvxpy" not in sys.modules, "cvxpy was imported before a weights QP was solved"
assert "matplotlib" not in sys.modules
print("ok")
"""


def test_public_names_do_not_import_cvxpy_or_matplotlib():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"
