"""graphiti-core's FalkorDriver builds its indexes in the background for the root driver and for
every group's clone, and each build's first statement creates its graph. FalkorDB 4.16 deadlocked
once creating one graph while another was being created, so graph-trust runs one build at a time
per server connection. Checked on a real embedded FalkorDB through MONITOR: the index statements
of different graphs never interleave, whatever the number and order of groups reached."""

from __future__ import annotations

import threading

import pytest
import redis
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from graph_trust.graph import routing
from graph_trust.graph.connection import open_graph


class Monitor:
    """The commands the server receives until ``ECHO <stop>``, in the order it runs them."""

    def __init__(self, socket_path: str, stop: str):
        self.stop, self.commands = stop, []
        self._client = redis.Redis(unix_socket_path=socket_path)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()
        assert self._ready.wait(10)

    def _listen(self) -> None:
        with self._client.monitor() as m:
            self._ready.set()
            for cmd in m.listen():
                text = cmd["command"]
                if text == f"ECHO {self.stop}":
                    return
                self.commands.append(text)

    def finish(self) -> list[str]:
        self._client.echo(self.stop)
        self._thread.join(10)
        assert not self._thread.is_alive()
        return self.commands


def index_blocks(commands: list[str], graphs: set[str]) -> list[str]:
    """The graph of each run of consecutive index statements, for ``graphs`` only."""
    runs: list[str] = []
    for text in commands:
        parts = text.split(" ", 2)
        if len(parts) == 3 and parts[0] == "GRAPH.QUERY" and parts[1] in graphs and "INDEX" in parts[2]:
            if not runs or runs[-1] != parts[1]:
                runs.append(parts[1])
    return runs


@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.integers(0, 4), min_size=1, max_size=8),
       settle_after=st.integers(0, 8))
async def test_index_builds_never_interleave(settings, falkor_server, unique, picks, settle_after):
    tag = f"{unique}_{abs(hash((tuple(picks), settle_after))) % 10**8}"
    monitor = Monitor(falkor_server.socket_path, f"stop_{tag}")
    db = f"root_{tag}"
    cfg = settings.model_copy(update={"graph": settings.graph.model_copy(update={"database": db})})
    groups = [f"g{p}_{tag}" for p in picks]
    async with open_graph(cfg) as graph:
        for i, group in enumerate(groups):
            if i == settle_after:  # some clones made while earlier builds still run, some after
                await graph.settle()
            routing.driver_for_group(graph.driver, group)
        await graph.settle()
    blocks = index_blocks(monitor.finish(), {db, *groups})
    assert sorted(blocks) == sorted({db, *groups})  # each graph's build is one uninterrupted run
    assert blocks[0] == db  # the root's first


@pytest.mark.parametrize("clones", [1, 3])
async def test_a_clone_of_a_user_driver_waits_for_its_build(falkor_server, unique, clones):
    """A driver the application made itself (its build already running) is not cloned beside it."""
    from falkordb.asyncio import FalkorDB
    from graphiti_core.driver.falkordb_driver import FalkorDriver

    from graph_trust.graph.backends.falkordb import BACKEND

    monitor = Monitor(falkor_server.socket_path, f"stop_{unique}")
    root = FalkorDriver(falkor_db=FalkorDB(unix_socket_path=falkor_server.socket_path), database=f"app_{unique}")
    made = [BACKEND.clone(root, f"c{i}_{unique}") for i in range(clones)]
    for d in [root, *made]:
        await routing.index_build_done(d)
    await root.close()
    blocks = index_blocks(monitor.finish(), {root._database, *(d._database for d in made)})
    assert blocks == [root._database, *(d._database for d in made)]
