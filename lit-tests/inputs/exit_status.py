"""Run a command, print its output (stdout, then stderr) and `exit status: N`.

lit's `not` only tells zero from non-zero; this pins the exact status.
"""

import subprocess
import sys

result = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(result.stdout)
sys.stdout.write(result.stderr)
print(f"exit status: {result.returncode}")
