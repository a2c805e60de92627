"""A real browser against ``boardzoo serve``: headless Chromium (Debian's ``chromium``, installed by
scripts/setup.sh) driven by Playwright for Python. It opens the lobby, starts a 2-player game against
the random bot in two games, clicks legal moves until the end, checks the winner banner, opens the
replay of the finished game, and saves screenshots under the test's tmp dir (and, when
``BOARDZOO_SCREENSHOTS`` names a folder, there too: that is how docs/web_*.png were made).

Without Chromium or Playwright the test fails, saying what to install; ``BOARDZOO_BROWSER=0`` skips it
on purpose (as ``BOARDZOO_RLLIB=0`` does for Ray).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

OPT_OUT = os.environ.get("BOARDZOO_BROWSER", "1") == "0"
if OPT_OUT:
    pytest.skip("BOARDZOO_BROWSER=0: the browser test is switched off", allow_module_level=True)

GAMES = ["hidden_castle_v0", "get_on_board_v0"]
MAX_CLICKS = 300
TIMEOUT_MS = 60_000  # generous: CI runs this beside other tests on 2 cores


def _chromium() -> str:
    path = os.environ.get("BOARDZOO_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail(
            "the browser test needs Debian's chromium: apt-get install -y chromium (scripts/setup.sh does it), "
            "or set BOARDZOO_CHROMIUM=/path/to/chromium; BOARDZOO_BROWSER=0 switches the test off"
        )
    return path


@pytest.fixture(scope="module")
def server():
    try:
        import uvicorn

        from boardzoo.web.app import create_app
        from boardzoo.web.sessions import Hub
    except ImportError as e:
        pytest.fail(f"the browser test needs the web extra: pip install -e '.[webtest]' ({e})")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(
        uvicorn.Config(create_app(Hub(bot_delay=0.05)), host="127.0.0.1", port=port, log_level="warning")
    )
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and th.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    th.join(10)


@pytest.fixture(scope="module")
def browser():
    path = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        pytest.fail(f"the browser test needs Playwright for Python: pip install -e '.[webtest]' ({e})")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _shot(page, tmp_path: Path, name: str) -> Path:
    page.wait_for_function("() => [...document.images].every((i) => i.complete)")
    out = tmp_path / f"{name}.png"
    page.screenshot(path=str(out))
    assert out.stat().st_size > 5_000
    keep = os.environ.get("BOARDZOO_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(out, Path(keep) / out.name)
    return out


def test_play_two_games_against_the_random_bot_in_a_real_browser(server, browser, tmp_path):
    rng = np.random.default_rng(0)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(TIMEOUT_MS)
    for k, env_id in enumerate(GAMES):
        page.goto(server + "/")
        page.wait_for_selector("#games tbody tr")
        if k == 0:
            _shot(page, tmp_path, "web_lobby")
        page.select_option("#game", env_id)
        page.fill("#players", "2")
        page.dispatch_event("#players", "change")
        page.select_option("#seat-0", "human")
        page.select_option("#seat-1", "random")
        page.fill("#seed", str(7 + k))
        page.click("#start")
        page.wait_for_selector("#table:not([hidden])")
        clicks = 0
        while True:
            page.wait_for_function(
                "() => ['your-move', 'over'].includes(document.querySelector('#table').dataset.state)"
            )
            table = page.locator("#table")
            if table.get_attribute("data-state") == "over":
                break
            if k == 1 and clicks == 10:
                _shot(page, tmp_path, "web_game")
            before = table.get_attribute("data-move")
            moves = page.locator("#moves .move")
            n = moves.count()
            assert n > 0, "your move, but no move to click"
            moves.nth(int(rng.integers(n))).click()
            clicks += 1
            assert clicks < MAX_CLICKS, f"{env_id}: no end after {MAX_CLICKS} moves"
            page.wait_for_function(f"() => document.querySelector('#table').dataset.move !== '{before}'")
        banner = page.locator("#banner")
        assert banner.is_visible()
        text = banner.inner_text()
        assert "Game over" in text and "Winner" in text and ("You win!" in text or "You lose." in text), text
        assert clicks > 3, f"{env_id}: only {clicks} moves"
        _shot(page, tmp_path, f"web_end_{env_id}")
    # the finished game as a replay: the last step shows the same winners
    page.click("#to-replay")
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_selector("#replay[data-step='0']")
    page.click("#last")
    page.wait_for_selector("#replay-banner:not([hidden])")
    assert "Winner" in page.locator("#replay-banner").inner_text()
    page.click("#prev")
    page.wait_for_selector("#replay-banner[hidden]", state="attached")
    page.click("#next")
    page.select_option("#view-as", "0")
    page.wait_for_selector("#replay-private-box:not([hidden])")
    _shot(page, tmp_path, "web_replay")
    assert not errors, f"script errors in the page: {errors}"
