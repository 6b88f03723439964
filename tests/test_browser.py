"""The replay and play pages in a real browser: headless Chromium driven by selenium.

Skipped when Chromium or its driver is missing on this machine, but failed in CI
(CI=true), where `.ci/run` installs them, so the browser tests cannot go missing.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import threading
from pathlib import Path

import pytest

from nefertiti_env import NefertitiGame

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1600,1200"]
SCREENSHOTS = os.environ.get("NEFERTITI_SCREENSHOTS")     # a folder to keep the screenshots in, to look at


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (CHROMIUM and DRIVER):
        message = "chromium and chromium-driver are needed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser tests cannot run in CI: {message}")
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver, tmp_path: Path, name: str) -> None:
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(folder / name))


def wait_for(driver, condition, timeout=20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(condition))


def test_replay_page_steps_with_the_keyboard(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from nefertiti_cli import main

    game, rng = NefertitiGame(3, seed=11), random.Random(11)
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    records = tmp_path / "records.jsonl"
    lines = [{"game": g, "bots": ["random"] * 3, "record": NefertitiGame(3, seed=g).record()} for g in (0, 1)]
    lines.append({"game": 2, "bots": ["greedy", "random", "mcts"], "record": game.record()})
    records.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    page = tmp_path / "replay.html"
    assert main(["replay", str(records), "--game", "2", "--out", str(page)]) == 0

    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    assert body.get_attribute("data-index") == "0"
    first = game.action_to_string(game.history[0])
    assert f"chose: {first}" in browser.find_element(By.ID, "move").text
    for key, expected in [(Keys.ARROW_RIGHT, 1), (Keys.ARROW_RIGHT, 2), (Keys.ARROW_LEFT, 1), (Keys.END, len(game.history)),
                          (Keys.ARROW_RIGHT, len(game.history)), (Keys.HOME, 0)]:
        body.send_keys(key)
        assert body.get_attribute("data-index") == str(expected)
    body.send_keys(Keys.ARROW_RIGHT)
    who = NefertitiGame.replay({**game.record(), "actions": game.history[:1]}).current_player
    assert browser.find_element(By.ID, "move").text.startswith(f"P{who} (")
    browser.find_element(By.ID, "last").click()
    assert "Game over" in browser.find_element(By.ID, "board").text
    assert browser.find_element(By.ID, "board").find_elements(By.TAG_NAME, "svg")
    screenshot(browser, tmp_path, "replay.png")
    assert console_errors(browser) == []


def test_play_page_completes_a_game_by_clicking_legal_moves(browser, tmp_path):
    from selenium.webdriver.common.by import By

    from nefertiti_cli.serve import PlaySession, make_server
    from nefertiti_env.agents import make_bot

    # the greedy bot's first decision compiles the bots' kernels when this process finds no cache (a fresh
    # clone, a few minutes on a loaded machine): done here, before the page's waits for each move
    warm = NefertitiGame(2, seed=5)
    make_bot("greedy", seed=0).act(warm, warm.current_player)
    session = PlaySession(tmp_path / "games", dict(ruleset="default", setup="beginner", memphis=None,
                                                   characters="base"))
    session.new("random,greedy", seat=0, seed=5)
    server = make_server(session, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/?delay=0")
        clicks = board_clicks = 0
        while True:
            wait_for(browser, "return document.body.dataset.over === 'true' || "
                              "(document.body.dataset.humanToMove === 'true' && "
                              "document.querySelectorAll('#moves button').length > 0)")
            if browser.execute_script("return document.body.dataset.over") == "true":
                break
            logged = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
            on_board = browser.find_elements(By.CSS_SELECTOR, "#board .clickable.legal")
            if on_board and clicks % 2 == 0:
                on_board[0].click()
                board_clicks += 1
            else:
                buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button")
                buttons[clicks % len(buttons)].click()
            clicks += 1
            if clicks == 3:
                screenshot(browser, tmp_path, "play.png")
            wait_for(browser, f"return document.querySelectorAll('#log li').length > {logged} || "
                              "document.body.dataset.over === 'true'")
        screenshot(browser, tmp_path, "play_over.png")
        assert "Game over" in browser.find_element(By.ID, "status").text
        assert clicks > 10 and board_clicks > 3
        saved = list((tmp_path / "games").glob("*.json"))
        assert len(saved) == 1
        entry = json.loads(saved[0].read_text())
        assert entry["bots"] == ["you", "random", "greedy"]
        replayed = NefertitiGame.replay(entry["record"])
        assert replayed.is_over() and replayed.history == session.game.history
        assert console_errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


FOREIGN_PAGE = """<!doctype html><html><body>
<form id="form" method="POST" enctype="text/plain" action="{target}/api/new">
<input name='{{"bots": "random", "seat": 0, "x": "' value='"}}'></form>
<script>
const results = [];
async function attempt(name, options) {{
  try {{
    const r = await fetch("{target}" + options.path, options);
    results.push(name + ":" + r.type + ":" + r.status);
  }}
  catch (err) {{ results.push(name + ":refused"); }}
}}
(async () => {{
  await attempt("json", {{path: "/api/new", method: "POST", headers: {{"Content-Type": "application/json"}},
                          body: JSON.stringify({{bots: "random", seat: 0}})}});
  await attempt("plain", {{path: "/api/new", method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                           body: JSON.stringify({{bots: "random", seat: 0}})}});
  await attempt("read", {{path: "/api/state"}});
  document.title = results.join(" ");
}})();
</script></body></html>"""


def test_a_foreign_pages_form_and_fetch_are_refused(browser, tmp_path):
    """A page of another origin (here another port) posts a text/plain form and fetches JSON and text
    to the play server: the game is untouched, its state unread, and the form lands on the refusal."""
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from nefertiti_cli.serve import PlaySession, make_server

    session = PlaySession(tmp_path / "games", dict(ruleset="default", setup="beginner", memphis=None,
                                                   characters="base"))
    session.new("greedy,greedy", seat=0, seed=5)
    game, server = session.game, make_server(session, 0)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(FOREIGN_PAGE.format(target=f"http://127.0.0.1:{server.server_port}"))
    foreign = ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: SimpleHTTPRequestHandler(*a, directory=str(site)))
    for s in (server, foreign):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{foreign.server_port}/index.html")
        wait_for(browser, "return document.title.includes('read:')")
        title = browser.title
        assert "json:refused" in title and "read:refused" in title and "plain:opaque" in title, title
        browser.execute_script("document.getElementById('form').submit()")
        wait_for(browser, f"return location.port === '{server.server_port}'")
        assert "not served" in browser.find_element("tag name", "body").text
        assert session.game is game and session.specs == ["you", "greedy", "greedy"]
    finally:
        for s in (server, foreign):
            s.shutdown()
            s.server_close()
