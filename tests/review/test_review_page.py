"""The review page (``graph-trust review serve``) through Starlette's TestClient on a real graph and
review DB: the queue as the CLI ranks it, a fact's view, decisions and undo through the same api
calls (both review DB backends), CSRF on every write, the reviewer's identity (configured or a
proxy's header), escaping (fixed hostile texts and generated ones), errors and the start-up check."""

from __future__ import annotations

import ast
import random
import re
import socket
import string
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_helpers import run_cli
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from markupsafe import escape
from review_page_world import COMPETITOR, EPISODE_CONTENT, HOSTILE, MARKUP, make_page_world
from starlette.testclient import TestClient
from sync_fixtures import FACTS, edge_props, row

from graph_trust import api
from graph_trust.errors import ConfigError
from graph_trust.review.db import ReviewConn
from graph_trust.review.web import app as web_app
from graph_trust.review.web.app import CSRF_COOKIE, SHORTCUTS
from graph_trust.sync.review_db import init_review_db, insert_rows

DOCS = Path(__file__).resolve().parents[2] / "docs" / "review.md"
RUNS_ON_1 = FACTS[1]  # billing-db runs on db-host-1 (candidate c2), competing with COMPETITOR's db-host-2


def esc(text: str) -> str:
    """``text`` as the page's autoescaping writes it."""
    return str(escape(text))


def client(settings) -> TestClient:
    return TestClient(api.review_page_app(settings), base_url="http://127.0.0.1")


def token_of(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def snapshot(url: str) -> tuple:
    """Everything a write could change: the candidate rows and the audit trail."""
    with ReviewConn.open(url) as conn:
        return (sorted(conn.query("SELECT id, status, updated_at FROM candidates")),
                conn.query("SELECT count(*) FROM review_decisions")[0][0],
                conn.query("SELECT count(*) FROM review_flags WHERE resolved_at IS NOT NULL")[0][0])


def statuses(url: str) -> dict[str, str]:
    with ReviewConn.open(url) as conn:
        return dict(conn.query("SELECT id, status FROM candidates"))


class Tags(HTMLParser):
    """The start tags of a page (with their attributes) and the text of its h1."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple]] = []
        self.h1: list[str] = []
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(a for a, _ in attrs)))
        self._in_h1 = tag == "h1"

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1.append(data)


def parse(page: str) -> Tags:
    p = Tags()
    p.feed(page)
    return p


# --- reading --------------------------------------------------------------------------------------

async def test_the_queue_page_ranks_as_review_queue_and_says_why(page_world):
    w = page_world
    items = await api.review_queue(w.settings, graph=w.graph)
    assert len(items) >= 3
    with client(w.settings) as c:
        page = c.get("/")
        assert page.status_code == 200
        hrefs = re.findall(r'<tr data-row data-href="/fact/([^"]+)"', page.text)
        assert hrefs == [i.edge_uuid for i in items]  # the same facts in the same order
        for i in items:
            for r in i.reasons:
                assert f"{esc(r['rule'])}</strong> {r['score']:.2f}: {esc(r['why'])}" in page.text
        grouped = await api.review_queue(w.settings, group=w.group, graph=w.graph)
        assert re.findall(r"data-href=\"/fact/([^\"]+)\"", c.get(f"/?group={w.group}").text) == \
            [i.edge_uuid for i in grouped]
        other = c.get("/?group=nobody-here")
        assert "data-row" not in other.text and 'id="empty"' in other.text and "in group nobody-here" in other.text
        assert len(re.findall("data-row", c.get("/?limit=2").text)) == 2
        bad = c.get("/?limit=lots")
        assert bad.status_code == 400 and "limit must be a whole number" in bad.text


async def test_a_fact_page_shows_competitors_provenance_confidence_and_searches(page_world):
    w = page_world
    move, host1 = w.u(COMPETITOR), w.u(RUNS_ON_1)
    with client(w.settings) as c:
        page = c.get(f"/fact/{move}").text
        assert 'id="edge-uuid">' + move in page
        competitors = page.split('id="competitors"')[1].split("</table>")[0]
        assert f'href="/fact/{host1}">db-host-1</a>' in competitors and RUNS_ON_1.fact in competitors
        episodes = page.split('id="episodes"')[1].split("</ul>")[0]
        assert "ops chat 2026-01-02" in episodes and "ops channel" in episodes
        assert esc(EPISODE_CONTENT) in episodes and "<img" not in episodes
        returns = page.split('id="returns"')[1].split("</table>")[0]
        assert re.search(r"<td>search</td><td class=\"num\">2</td><td class=\"num\">3</td>", returns)
        assert 'id="unreviewed"' in page  # no review row yet
        assert 'id="flags"' not in page
        await api.flag_fact(w.settings, move, "two hosts for one database?", agent="ops-bot", graph=w.graph)
        flags = c.get(f"/fact/{move}").text.split('id="flags"')[1].split("</ul>")[0]
        assert "<strong>ops-bot</strong>" in flags and "two hosts for one database?" in flags
        # by candidate id: the same edge, its row, its confidence factors
        by_id = c.get("/fact/c2").text
        assert 'id="edge-uuid">' + host1 in by_id and "<code>c2</code>" in by_id
        assert 'id="confidence"' in by_id and "freshness" in by_id.split('id="factors"')[1]


# --- writing --------------------------------------------------------------------------------------

async def test_promote_undo_reject_through_the_page_then_sync(graph, settings, review_url, unique):
    w = await make_page_world(graph, settings, review_url, unique)
    host1, move = w.u(RUNS_ON_1), w.u(COMPETITOR)
    with client(w.settings) as c:
        token = token_of(c.get(f"/fact/{host1}").text)
        r = c.post(f"/fact/{host1}/decide", data={"csrf_token": token, "action": "promote",
                                                  "reason": "checked the service map"}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith(f"/fact/{host1}?batch=review-")
        shown = c.get(r.headers["location"]).text
        assert "Recorded: <strong>promote</strong> by bob" in shown
        assert "on 1 candidate row(s): <code>c2</code> candidate → promoted." in shown  # every row it changed
        assert statuses(w.url)["c2"] == "promoted"
        trail = api.review_history(w.settings)
        assert [(t["action"], t["candidate_id"], t["previous_status"], t["new_status"], t["actor"], t["reason"])
                for t in trail] == [("promote", "c2", "candidate", "promoted", "bob", "checked the service map")]
        batch = trail[0]["batch_id"]
        assert f'name="batch_id" value="{batch}"' in shown  # the undo form names the batch it reverts
        u = c.post("/undo", data={"csrf_token": token, "batch_id": batch, "back": host1, "reason": "wrong host"},
                   follow_redirects=True)
        assert u.status_code == 200 and "Undone (batch" in u.text and statuses(w.url)["c2"] == "candidate"
        assert (await edge_props(w.graph, w.group))[host1]["trust_score"] is None  # no sync ran yet
        # "apply now": the decision and a sync in one request
        rj = c.post(f"/fact/{move}/decide", data={"csrf_token": token, "action": "reject", "reason": "moved back",
                                                  "sync": "on"})
        assert rj.status_code == 200 and "Recorded: <strong>reject</strong>" in rj.text
        props = await edge_props(w.graph, w.group)
        assert props[host1]["trust_score"] == 0.25 and props[move]["trust_score"] is None
        # undo from the audit trail page: any batch, back to the history
        hist = c.get("/history").text
        assert hist.count('action="/undo"') == 1  # only the reject is left to undo (an undo is not undone)
        last = api.review_history(w.settings)[0]["batch_id"]
        h = c.post("/undo", data={"csrf_token": token, "batch_id": last, "reason": "not yet"}, follow_redirects=False)
        assert h.status_code == 303 and h.headers["location"].startswith("/history?undone=review-")
        assert "Undone: batch" in c.get(h.headers["location"]).text and move not in statuses(w.url)
        rj = c.post(f"/fact/{move}/decide", data={"csrf_token": token, "action": "reject", "reason": "moved back"})
        assert rj.status_code == 200
    trail = api.review_history(w.settings)
    assert [(t["action"], t["candidate_id"], t["new_status"], t["actor"]) for t in trail] == [
        ("reject", move, "rejected", "bob"), ("undo", move, None, "bob"), ("reject", move, "rejected", "bob"),
        ("undo", "c2", "candidate", "bob"), ("promote", "c2", "promoted", "bob")]
    assert trail[4]["undone_by"] == trail[3]["batch_id"] and trail[2]["undone_by"] == trail[1]["batch_id"]
    await api.sync(w.settings, graph=w.graph)
    props = await edge_props(w.graph, w.group)
    assert props[host1]["trust_score"] == 0.25  # candidate again
    assert props[move]["trust_score"] is None and props[move]["trust_status"] is None  # rejected: cleared (test tiers)


WRITES = [("decide", lambda w: f"/fact/{w.u(RUNS_ON_1)}/decide",
           {"action": "promote", "reason": "ok"}),
          ("undo", lambda w: "/undo", {"reason": "undo it"})]


@pytest.mark.parametrize("name,path,fields", WRITES, ids=[n for n, _, _ in WRITES])
async def test_a_write_without_the_right_csrf_token_is_refused_and_changes_nothing(page_world, name, path, fields):
    w = page_world
    # (the page's reviewer, bob, decided it: an undo without a batch id undoes the reviewer's own batch)
    await api.review_decide(w.settings, "corroborate", ["c1"], actor="bob", reason="seen", graph=w.graph)
    before = snapshot(w.url)
    with client(w.settings) as c, client(w.settings) as other:
        good = token_of(c.get(f"/fact/{w.u(RUNS_ON_1)}").text)
        foreign = token_of(other.get(f"/fact/{w.u(RUNS_ON_1)}").text)  # signed by another server's key
        nonce, sig = good.split(".")
        rnd = random.Random(7)
        wrong = [None, "", foreign, f"{nonce}.{sig[:-1]}{'0' if sig[-1] != '0' else '1'}", f"{nonce}x.{sig}", nonce,
                 good + " ", *("".join(rnd.choice(string.printable) for _ in range(rnd.randrange(1, 90)))
                               for _ in range(20))]
        for field in wrong:
            data = {**fields, **({} if field is None else {"csrf_token": field})}
            r = c.post(path(w), data=data)
            assert r.status_code == 403 and "CSRF token missing or wrong" in r.text, field
        # the right field but no cookie, or a cookie another server signed
        c.cookies.clear()
        assert c.post(path(w), data={**fields, "csrf_token": good}).status_code == 403
        c.cookies.clear()
        c.cookies.set(CSRF_COOKIE, foreign)
        assert c.post(path(w), data={**fields, "csrf_token": foreign}).status_code == 403
        assert snapshot(w.url) == before
        c.cookies.clear()
        c.cookies.set(CSRF_COOKIE, good)  # the control: the same write with the token goes through
        assert c.post(path(w), data={**fields, "csrf_token": good}, follow_redirects=False).status_code == 303
    assert snapshot(w.url) != before


def _post(c: TestClient, path: str, data: dict, headers: dict | None = None):
    token = token_of(c.get("/fact/c2", headers=headers).text)
    return c.post(path, data={**data, "csrf_token": token}, headers=headers, follow_redirects=False)


async def test_writes_need_a_reviewer_identity_from_config_or_the_proxy_header(page_world):
    w = page_world
    target = f"/fact/{w.u(RUNS_ON_1)}/decide"
    before = snapshot(w.url)
    w.settings.review.page.reviewer = None
    with client(w.settings) as c:
        assert "no reviewer identity: decisions are refused" in c.get("/").text
        r = _post(c, target, {"action": "reject", "reason": "x"})
        assert r.status_code == 403 and "Refused: no reviewer identity" in r.text and "review.page.reviewer" in r.text
        assert _post(c, "/undo", {"reason": "x"}).status_code == 403
    assert snapshot(w.url) == before
    # behind a proxy: only its header counts (the configured reviewer is ignored)
    w.settings.review.page.reviewer = "bob"
    w.settings.review.page.identity_header = "X-Forwarded-User"
    with client(w.settings) as c:
        r = _post(c, target, {"action": "reject", "reason": "x"})
        assert r.status_code == 403 and "the X-Forwarded-User header" in r.text
        for nobody in ("unknown", "  ", "[anonymous]"):
            r = _post(c, target, {"action": "reject", "reason": "x"}, headers={"X-Forwarded-User": nobody})
            assert r.status_code in (400, 403), nobody
        assert snapshot(w.url) == before
        page = c.get("/", headers={"X-Forwarded-User": "carol"}).text
        assert "reviewing as <strong>carol</strong> (from X-Forwarded-User)" in page
        r = _post(c, target, {"action": "reject", "reason": "stale host"}, headers={"X-Forwarded-User": "carol"})
        assert r.status_code == 303
        # the override policy holds on the page too: alice proposed c1, so she may not promote it
        r = _post(c, "/fact/c1/decide", {"action": "promote", "reason": "mine"}, headers={"X-Forwarded-User": "alice"})
        assert r.status_code == 400 and "alice proposed c1" in r.text and "nothing was decided" in r.text
    assert [(t["actor"], t["action"], t["candidate_id"]) for t in api.review_history(w.settings)] == [
        ("carol", "reject", "c2")]


async def test_a_decision_needs_an_action_and_a_reason_and_says_so(page_world):
    w = page_world
    before = snapshot(w.url)
    with client(w.settings) as c:
        path = f"/fact/{w.u(RUNS_ON_1)}/decide"
        r = _post(c, path, {"reason": "no action"})
        assert r.status_code == 400 and "choose a decision" in r.text and 'value="no action"' in r.text
        r = _post(c, path, {"action": "promote", "reason": "  "})
        assert r.status_code == 400 and "--reason must say why" in r.text
        r = _post(c, path, {"action": "undo", "reason": "x"})
        assert r.status_code == 400
    assert snapshot(w.url) == before


# --- escaping -------------------------------------------------------------------------------------

async def test_markup_in_facts_episodes_reasons_and_ids_is_shown_as_text(page_world):
    w = page_world
    markup = w.u(MARKUP)
    await api.review_decide(w.settings, "corroborate", [markup], actor="carol", reason='<script>x</script> "r"',
                            graph=w.graph)
    with client(w.settings) as c:
        # the whole queue (the graph holds other tests' groups, which can fill the first page)
        pages = {"queue": c.get("/?limit=100000").text, "fact": c.get(f"/fact/{markup}").text,
                 "episode": c.get(f"/fact/{w.u(COMPETITOR)}").text, "history": c.get("/history").text,
                 "missing": c.get("/fact/%3Cscript%3Ealert(1)%3C%2Fscript%3E").text}
    for name, page in pages.items():
        tags = parse(page).tags
        assert [t for t in tags if t[0] == "script"] == [("script", ("src", "defer"))], name
        assert not {t for t, _ in tags} & {"img", "b"}, name
    assert esc(HOSTILE) in pages["queue"] and esc(HOSTILE) in pages["fact"]
    assert "".join(parse(pages["fact"]).h1) == HOSTILE  # the text itself, unchanged
    assert esc('<script>x</script> "r"') in pages["history"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["missing"]


@pytest.fixture
def generated_page(settings, tmp_path):
    """A page on a review DB of rows with no edge (what a generated text needs), open for every example."""
    url = tmp_path / "gen.sqlite3"
    api.init_review_db(url)
    insert_rows(url, [{**row("plain", "no-edge-plain", "candidate", "g"), "fact": "plain"}])
    settings.review.url = str(url)
    with client(settings) as c:
        yield c, url, c.get("/fact/plain").text


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from("<>&\"'/=`; \u00e9\u2028ab{}%#") | st.characters(
    blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60).filter(lambda t: t.strip()))
def test_any_fact_text_reaches_the_page_as_text(generated_page, text):
    """Generated texts: the page's elements are the template's whatever the text, and its h1 is the text."""
    c, url, plain = generated_page
    cid = f"gen-{random.getrandbits(48):x}"
    insert_rows(url, [{**row(cid, f"no-edge-{cid}", "candidate", "g"), "fact": text}])
    page = c.get(f"/fact/{cid}").text
    assert [t for t, _ in parse(page).tags] == [t for t, _ in parse(plain).tags]
    assert "".join(parse(page).h1) == text


# --- errors, headers, start-up -------------------------------------------------------------------

async def test_errors_hosts_and_headers(page_world):
    w = page_world
    with client(w.settings) as c:
        r = c.get("/")
        assert "script-src 'self'" in r.headers["content-security-policy"] and r.headers["x-frame-options"] == "DENY"
        cookie = r.headers["set-cookie"].lower()  # the first page sets the CSRF cookie, later ones keep it
        assert "httponly" in cookie and "samesite=strict" in cookie and "set-cookie" not in c.get("/").headers
        r = c.get("/fact/no-such-fact-42")
        assert r.status_code == 404 and "no fact &#39;no-such-fact-42&#39;" in r.text
        r = c.get("/nowhere")
        assert r.status_code == 404 and "no page &#39;/nowhere&#39;" in r.text
        assert c.get("/undo").status_code == 405
        js = c.get("/static/keys.js")
        assert js.status_code == 200 and "javascript" in js.headers["content-type"]
        assert c.get("/", headers={"host": "evil.example"}).status_code == 400  # DNS rebinding


def test_serve_refuses_an_unreachable_or_unready_review_db_before_it_starts(tmp_path):
    missing = run_cli("review", "serve", "--review-db", str(tmp_path / "nowhere" / "r.sqlite3"), "--port", "1")
    assert missing.code == 2 and missing.err.strip().splitlines()[-1].startswith("error: ")
    assert "nowhere" in missing.err
    bare = tmp_path / "bare.sqlite3"
    init_review_db(bare)  # candidates only: no review tables
    out = run_cli("review", "serve", "--review-db", str(bare), "--port", "1")
    assert out.code == 2 and "lacks the review tables" in out.err and "graph-trust review init" in out.err
    pg = run_cli("review", "serve", "--review-db", "postgresql://nobody@127.0.0.1:1/review", "--port", "1")
    assert pg.code == 2 and pg.err.strip().splitlines()[-1].startswith("error: review DB postgresql://nobody@")
    ready = tmp_path / "ready.sqlite3"
    api.init_review_db(ready)
    graph = run_cli("review", "serve", "--review-db", str(ready), "--graph", "falkordb://127.0.0.1:1")
    assert graph.code == 2 and graph.err.strip() == (
        "error: cannot reach graph falkordb://127.0.0.1:1: connection refused (nothing listens on that port): "
        "check the host and port, and that the server is running")


def test_serve_says_when_it_cannot_listen(settings, embedded_path, tmp_path):
    ready = tmp_path / "ready.sqlite3"
    api.init_review_db(ready)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = run_cli("review", "serve", "--review-db", str(ready), "--graph", f"embedded:{embedded_path}",
                      "--port", str(port))
    assert out.code == 2 and out.err.strip().splitlines()[-1] == \
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use"


def test_the_shortcuts_are_on_the_page_and_in_the_docs(settings, tmp_path):
    docs = DOCS.read_text(encoding="utf-8").split("## The review page")[1]
    for keys, _what, _ in SHORTCUTS:
        assert f"`{keys}`" in docs, keys
    page = Path(__file__).resolve().parents[2] / "graph_trust" / "review" / "web" / "static" / "keys.js"
    js = page.read_text(encoding="utf-8")
    for key in ("j", "k", "o", "p", "c", "r", "e", "u", "q", "h", "?"):
        assert f'case "{key}"' in js, key


def test_without_the_review_page_extra_the_page_names_the_install_command(settings, monkeypatch):
    monkeypatch.setattr(web_app, "Starlette", None)  # what an install without starlette sees
    with pytest.raises(ConfigError, match=re.escape("pip install 'graph-trust[review-page]'")):
        api.review_page_app(settings)


def test_the_page_reaches_the_review_db_and_graph_only_through_the_api_functions_it_is_handed():
    """It imports no reader or writer: every read and write is a PageOps call the api binds."""
    tree = ast.parse(Path(web_app.__file__).read_text(encoding="utf-8"))
    mine = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
            and n.module.startswith("graph_trust")}
    assert mine == {"graph_trust.config", "graph_trust.errors", "graph_trust.review.schema"}
