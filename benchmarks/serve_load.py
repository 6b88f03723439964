"""Many connections at once to `nefertiti serve`, as a browser and a few tabs open them: how many are
answered and how long they take, with the server's listen backlog (`serve.BACKLOG`) or another.

    python benchmarks/serve_load.py --clients 100 --requests 40
    python benchmarks/serve_load.py --backlog 5        # http.server's default

Each client thread opens a new connection per request (GET /favicon.ico, the cheapest answer), so the
figures measure accepting connections, not the game. Prints answered, failed (by exception) and seconds.
"""
from __future__ import annotations

import argparse
import http.client
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from nefertiti_cli import serve


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backlog", type=int, default=serve.BACKLOG, help=f"listen backlog (default {serve.BACKLOG})")
    parser.add_argument("--clients", type=int, default=100, help="threads sending at once (default 100)")
    parser.add_argument("--requests", type=int, default=40, help="requests per client (default 40)")
    args = parser.parse_args(argv)
    serve._Server.request_queue_size = args.backlog
    session = serve.PlaySession(Path(tempfile.mkdtemp()) / "games", dict(ruleset="default", setup="beginner",
                                                                          memphis=None, characters="base"))
    session.new("random,random", 0, 1)
    server = serve.make_server(session, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    answered, failed, lock = [0], Counter(), threading.Lock()

    def client():
        for _ in range(args.requests):
            try:
                connection = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
                connection.request("GET", "/favicon.ico")
                connection.getresponse().read()
                connection.close()
                with lock:
                    answered[0] += 1
            except OSError as err:
                with lock:
                    failed[type(err).__name__] += 1

    start = time.perf_counter()
    clients = [threading.Thread(target=client) for _ in range(args.clients)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    seconds = time.perf_counter() - start
    server.shutdown()
    server.server_close()
    print(f"backlog {args.backlog}: {answered[0]} answered, {sum(failed.values())} failed {dict(failed)} "
          f"in {seconds:.1f} s")


if __name__ == "__main__":
    main()
