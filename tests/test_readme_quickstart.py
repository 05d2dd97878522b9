"""The README's quickstart works as written: its bot file and its commands, run as a user would."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def quickstart() -> tuple[str, list[str]]:
    text = README.read_text()
    section = text.split("## Write your first bot", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    commands = [
        line.strip()
        for block in re.findall(r"```sh\n(.*?)```", section, re.S)
        for line in block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    return code, commands


def test_quickstart_runs_as_written(tmp_path: Path) -> None:
    code, commands = quickstart()
    assert "class HeartsFirst(Bot)" in code
    assert len(commands) == 5
    (tmp_path / "my_bot.py").write_text(code)
    for command in commands:
        assert command.startswith("python -m bots_sdk "), command
        args = [sys.executable] + command.split()[1:]
        done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        assert "warning" not in done.stderr, done.stderr
        if "--games 20" in command:
            assert "summary over 20 matches" in done.stdout
        if "replay check" in command:
            assert done.stdout.startswith("OK ")
        if "replay show" in command:
            assert "step 1: seat" in done.stdout and "result:" in done.stdout
        if "replay decide" in command:
            assert "in the match: " in done.stdout and "your bot: " in done.stdout
    assert (tmp_path / "first.replay.gz").is_file()
