"""Runs one scenario of js/tools/drive.mjs (the browser driver) on a plan; returns its report."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

DRIVER = Path(__file__).resolve().parent.parent / "js" / "tools" / "drive.mjs"


def drive_plan(scenario: str, plan: dict, plan_file: Path) -> dict:
    """Writes `plan` to `plan_file`, runs the driver's `scenario` on it, parses its report."""
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    proc = subprocess.run(["node", str(DRIVER), scenario, str(plan_file)], cwd=DRIVER.parent,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"{DRIVER.name} {scenario} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)
