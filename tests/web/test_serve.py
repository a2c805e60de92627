"""``boardzoo serve``: the command starts the server on a local port, prints the URL, and serves the
lobby; bad arguments fail clearly."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")

from boardzoo.training.cli import main  # noqa: E402


def test_serve_prints_its_url_and_serves_the_lobby():
    cmd = [sys.executable, "-c", "import sys; from boardzoo.training.cli import main; sys.exit(main())"]
    proc = subprocess.Popen(
        [*cmd, "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            line = proc.stdout.readline()
            if "http://" in line or proc.poll() is not None:
                break
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, f"no URL printed: {line!r}"
        with urllib.request.urlopen(m.group(0), timeout=10) as r:
            assert r.status == 200 and b"BoardZoo" in r.read()
        with urllib.request.urlopen(m.group(0) + "api/envs", timeout=10) as r:
            assert b"hydropolis_v0" in r.read()
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("args", [["--port", "70000"], ["--bot-delay", "-1"], ["--max-games", "0"]])
def test_serve_refuses_bad_arguments(args, capsys):
    assert main(["serve", *args]) == 2
    assert "boardzoo serve: error:" in capsys.readouterr().err
