"""The review page in a real browser: ``graph-trust review serve`` started as a process on a free
127.0.0.1 port against a real FalkorDB graph and SQLite review DB, driven by Playwright through the
system's headless Chromium (Debian's ``chromium`` package; Playwright's own browser download is
never used). A reviewer opens the queue, promotes a fact with a reason (keyboard shortcuts),
undoes it, rejects another (mouse); the review DB, the audit trail and the next sync agree.

Without Chromium this test fails and says how to install it (``.ci/run`` installs it)."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest
import yaml
from bolt_server import free_port
from playwright.async_api import async_playwright
from review_page_world import COMPETITOR, make_page_world
from serve_process import serve, stop, wait_until_up
from sync_fixtures import FACTS, edge_props

from graph_trust import api
from graph_trust.review.db import ReviewConn

RUNS_ON_1 = FACTS[1]


def chromium() -> str:
    """The system Chromium: $GRAPH_TRUST_CHROMIUM, /usr/bin/chromium, or chromium on PATH."""
    for candidate in (os.environ.get("GRAPH_TRUST_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.fail("no Chromium for the review page's browser test: install Debian's package "
                "(apt-get install -y chromium; .ci/run does) or set GRAPH_TRUST_CHROMIUM to its path")


async def test_a_reviewer_promotes_undoes_and_rejects_in_a_real_browser(graph, settings, tmp_path, unique,
                                                                       embedded_path):
    browser_path = chromium()
    w = await make_page_world(graph, settings, str(tmp_path / "review.sqlite3"), unique)
    host1, move = w.u(RUNS_ON_1), w.u(COMPETITOR)
    cfg = tmp_path / "graph-trust.yaml"
    cfg.write_text(yaml.safe_dump({
        "graph": {"uri": f"embedded:{embedded_path}", "database": settings.graph.database},
        "state_dir": str(settings.state_dir), "sync": {"tiers": settings.sync.tiers},
        "review": {"url": w.url, "page": {"reviewer": "bob"}}}))
    port, log = free_port(), tmp_path / "serve.log"
    base = f"http://127.0.0.1:{port}"
    proc = serve(["--config", str(cfg)], port, log)
    try:
        wait_until_up(proc, base + "/", log)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=browser_path, headless=True)
            try:
                page = await browser.new_page()
                page.set_default_timeout(15000)
                problems: list[str] = []  # script errors, CSP refusals, failed loads: none expected
                page.on("pageerror", lambda exc: problems.append(str(exc)))
                page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
                await page.goto(base + "/")
                assert (await page.locator("#reviewer").inner_text()).strip() == "reviewing as bob"
                rows = page.locator("tr[data-row]")
                assert await rows.count() >= 3
                assert await rows.first.get_attribute("data-href") == f"/fact/{host1}"  # the contested slot's leader
                # keyboard: select the first fact, open it, promote it with a reason
                await page.keyboard.press("j")
                assert "selected" in (await rows.first.get_attribute("class") or "")
                await page.keyboard.press("Enter")
                await page.wait_for_url(f"{base}/fact/{host1}")
                assert await page.locator("#fact-text").inner_text() == RUNS_ON_1.fact
                assert "db-host-2" in await page.locator("#competitors").inner_text()
                # a stray Enter in the reason, no decision chosen: nothing is sent
                await page.click("#reason")
                await page.keyboard.type("checked the service map")
                await page.keyboard.press("Enter")
                assert "Choose a decision first" in await page.locator("#pending").inner_text()
                assert page.url == f"{base}/fact/{host1}" and api.review_history(w.settings) == []
                await page.keyboard.press("Escape")
                await page.keyboard.press("p")
                assert await page.evaluate("document.activeElement.id") == "reason"
                await page.keyboard.press("Enter")
                await page.wait_for_url(f"{base}/fact/{host1}?batch=*")
                assert "promote" in await page.locator("#message").inner_text()
                assert statuses(w.url)["c2"] == "promoted"
                # undo it: u focuses the undo reason, Enter submits
                await page.keyboard.press("u")
                await page.keyboard.type("wrong host")
                await page.keyboard.press("Enter")
                await page.wait_for_url(f"{base}/fact/{host1}?undone=*")
                assert "Undone" in await page.locator("#message").inner_text()
                assert statuses(w.url)["c2"] == "candidate"
                # back to the queue (q), then the competitor with the mouse: reject it
                await page.keyboard.press("q")
                await page.wait_for_url(base + "/")
                await page.locator(f'a.fact-link[href="/fact/{move}"]').click()
                await page.wait_for_url(f"{base}/fact/{move}")
                assert "ops channel" in await page.locator("#episodes").inner_text()  # its provenance
                await page.fill("#reason", "moved back to db-host-1")
                await page.click("#do-reject")
                await page.wait_for_url(f"{base}/fact/{move}?batch=*")
                assert "reject" in await page.locator("#message").inner_text()
                trail = await page.locator("#trail").inner_text()
                assert "moved back to db-host-1" in trail and "bob" in trail
                assert problems == []
            finally:
                await browser.close()
    finally:
        code = stop(proc, signal.SIGINT)
    assert code == 130 and "Application shutdown complete" in log.read_text()  # Ctrl-C: a clean stop
    # the review DB, the audit trail and the next sync agree
    assert statuses(w.url) == {"c1": "candidate", "c2": "candidate", "c4": "promoted", "c-markup": "candidate",
                               move: "rejected"}
    trail = api.review_history(w.settings)
    assert [(t["action"], t["candidate_id"], t["previous_status"], t["new_status"], t["actor"], t["reason"])
            for t in trail] == [
        ("reject", move, None, "rejected", "bob", "moved back to db-host-1"),
        ("undo", "c2", "promoted", "candidate", "bob", "wrong host"),
        ("promote", "c2", "candidate", "promoted", "bob", "checked the service map")]
    assert trail[2]["undone_by"] == trail[1]["batch_id"]
    await api.sync(w.settings, graph=w.graph)
    props = await edge_props(w.graph, w.group)
    assert props[host1]["trust_score"] == 0.25  # its candidate tier: the promotion was undone
    assert props[move]["trust_score"] is None and props[move]["trust_status"] is None  # rejected (tiers: cleared)


def statuses(url: str) -> dict[str, str]:
    with ReviewConn.open(url) as conn:
        return dict(conn.query("SELECT id, status FROM candidates"))
