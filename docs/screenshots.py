"""Regenerate the review page's screenshots (docs/img/review-queue.png, docs/img/review-fact.png)
from a real run: the bundled sample graph in a temporary embedded FalkorDB, its review DB synced,
a few searches in the retrieval log, then ``graph-trust review serve`` opened in headless Chromium
(the system's, through Playwright) and photographed.

    .venv/bin/python docs/screenshots.py            # needs the test extra and Debian's chromium

Nothing outside a temporary directory is touched but the two PNG files.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml
from PIL import Image
from playwright.async_api import async_playwright

from graph_trust import api
from graph_trust.clients.hashing import HashingEmbedder
from graph_trust.config import load_settings
from graph_trust.demo.sample import demo_queries, load_sample, sample_review_rows
from graph_trust.graph.connection import open_graph
from graph_trust.review.log import writer_for
from graph_trust.sync import insert_rows

OUT = Path(__file__).resolve().parent / "img"
CHROMIUM = os.environ.get("GRAPH_TRUST_CHROMIUM", "/usr/bin/chromium")
# what agents asked: the demo's queries and a few about the sample's contested facts
QUERIES = [*demo_queries(), "what does payments-api call", "which services does payments-api depend on",
           "where is db-03 located", "who is on call for the SRE rotation"]


async def prepare(cfg: dict, review: str) -> None:
    settings = load_settings(overrides=cfg, environ={})
    api.init_review_db(review)
    insert_rows(review, sample_review_rows())
    async with open_graph(settings) as g:
        await load_sample(g.driver, HashingEmbedder())
        await api.sync(settings, graph=g)
        for n, query in enumerate(QUERIES):
            for _ in range(1 + n % 3):
                await api.search(settings, query)
    writer_for(settings.review).close()  # the retrieval log written now


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(proc: subprocess.Popen, url: str) -> None:
    end = time.monotonic() + 60
    while time.monotonic() < end and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    raise SystemExit(f"graph-trust review serve did not start (exit code {proc.poll()})")


def shrink(path: Path) -> None:
    """A palette PNG: a screenshot of flat colours loses nothing visible and most of its size."""
    Image.open(path).convert("RGB").quantize(colors=64).save(path, optimize=True)


async def photograph(base: str) -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = await browser.new_page(viewport={"width": 1180, "height": 720})
            await page.goto(base + "/?limit=8")
            await page.screenshot(path=OUT / "review-queue.png")
            await page.keyboard.press("j")
            await page.keyboard.press("Enter")
            await page.wait_for_url(base + "/fact/*")
            await page.keyboard.press("r")
            await page.keyboard.type("payments-api calls payments-db only through the ledger service")
            await page.screenshot(path=OUT / "review-fact.png", full_page=True)
        finally:
            await browser.close()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gt-shots-") as tmp:
        review = str(Path(tmp) / "review.sqlite3")
        cfg = {"graph.uri": f"embedded:{tmp}/graph", "state_dir": f"{tmp}/state", "review.url": review}
        asyncio.run(prepare(cfg, review))
        config = Path(tmp) / "graph-trust.yaml"
        config.write_text(yaml.safe_dump({"graph": {"uri": cfg["graph.uri"]}, "state_dir": cfg["state_dir"],
                                          "review": {"url": review, "page": {"reviewer": "alice"}}}))
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPH_TRUST_")}
        proc = subprocess.Popen([sys.executable, "-m", "graph_trust", "review", "serve", "--config", str(config),
                                 "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_until_up(proc, f"http://127.0.0.1:{port}/")
            asyncio.run(photograph(f"http://127.0.0.1:{port}"))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    for name in ("review-queue.png", "review-fact.png"):
        shrink(OUT / name)
        print(f"wrote docs/img/{name} ({(OUT / name).stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
