"""The exact vector store's build (``graph-trust init``'s step) against the same store written from rows falkordb-py parses.

    python bench/bench_store_build.py [--edges 40000] [--embedder hashing|clustered] [--rounds 2] [--data DIR]

On one synthetic graph (bench/synth.py's ``build_fast``; ``--data`` keeps it for the next run),
alternating in one process: ``vector_store.build`` (its reads over RESP3, one float32 matrix
per range, the next range's read under way meanwhile) and the store written by the same
``write_generation`` from the same range reads parsed by falkordb-py (``GraphConnection.query``:
each vecf32 element a decimal string converted in Python, one read after the other), as the
build read them before. Per round: wall seconds, this process's CPU seconds and the FalkorDB
server's, and whether the two stores are identical file for file. No timed assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
import synth  # noqa: E402
from bench_vector import make  # noqa: E402
from output import emit  # noqa: E402

from graph_trust.config import load_settings  # noqa: E402
from graph_trust.graph import vector_index as vi  # noqa: E402
from graph_trust.graph import vector_store  # noqa: E402
from graph_trust.graph.connection import open_graph  # noqa: E402

FILES = ("uuids.npy", "vectors.npy", "terms.npy", "indptr.npy", "rows.npy", "tf.npy", "doclen.npy")


async def parsed_rows(conn, target: vi.Target):  # noqa: ANN001, ANN201
    """The build's range reads, each through falkordb-py's parser, one after the other."""
    items = await vi.count(conn, target.kind)
    for lo, hi in await conn.backend.vector_read_ranges(conn, target.kind, items):
        yield await conn.query(f"{target.kind}_vectors_in_range", lo=lo, hi=hi)


async def measure(edges: int, embedder: str, rounds: int, data: Path | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = data or Path(tmp)
        settings = load_settings(overrides={"graph.uri": f"embedded:{root}/g", "graph.database": "bench",
                                            "state_dir": f"{root}/state"}, environ={})
        async with open_graph(settings) as conn:
            if not (await conn.query("relates_to_count"))[0]["n"]:
                await conn.driver.build_indices_and_constraints()
                await synth.build_fast(conn, make(embedder), edges)
                await conn.settle()
            pid = int((await conn.driver.client.connection.info("server"))["process_id"])

            def server_cpu() -> float:
                f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

            async def one(way: str, out: Path) -> tuple[dict, dict]:
                t0, c0, s0 = time.perf_counter(), time.process_time(), server_cpu()
                if way == "build":
                    meta = await vector_store.build(conn, "edge", out)
                else:
                    meta = await vector_store.write_generation(
                        vector_store.location(out, conn.address.display, conn.database, "edge"), "edge",
                        parsed_rows(conn, vi.EDGES), graph=conn.address.display, database=conn.database,
                        count=lambda: vi.count(conn, "edge"))
                spent = {"wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(time.process_time() - c0, 2),
                         "server_cpu_s": round(server_cpu() - s0, 2)}
                files = {f: np.load(Path(meta["dir"]) / f) for f in FILES}
                return spent, files

            runs = []
            for r in range(rounds):
                got = {}
                for way in (("build", "parsed") if r % 2 == 0 else ("parsed", "build")):
                    with tempfile.TemporaryDirectory() as out:
                        got[way] = await one(way, Path(out))
                same = all(np.array_equal(got["build"][1][f].view(np.uint8), got["parsed"][1][f].view(np.uint8))
                           for f in FILES)
                runs.append({"build": got["build"][0], "parsed": got["parsed"][0], "identical": same,
                             "wall_ratio": round(got["parsed"][0]["wall_s"] / got["build"][0]["wall_s"], 2)})
            items = int((await conn.query("relates_to_count"))[0]["n"])
    return {"edges": items, "embedder": embedder, "rounds": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=40_000)
    ap.add_argument("--embedder", default="hashing", help="hashing or clustered (bench_vector's embedders)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--data", type=Path, default=None, help="keep the graph in this directory and reuse it")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = ap.parse_args()
    res = asyncio.run(measure(args.edges, args.embedder, args.rounds, args.data))
    res["command"] = shlex.join(["python", "bench/bench_store_build.py", *sys.argv[1:]])
    emit(res, args.json)


if __name__ == "__main__":
    main()
