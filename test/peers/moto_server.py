"""moto's S3 on 127.0.0.1 for the conditional-write tests: prints {"port": N} once listening and
serves until killed (SIGTERM) or until its stdin closes (the test process is gone).

Run as `python3 test/peers/moto_server.py` with a python3 that has moto[server] 5.

moto checks If-Match / If-None-Match on PUT, then stores the object, in two steps; its threaded
server could let two requests through between them. S3 makes each conditional PUT atomic, so here
every request runs whole under one lock (connections are still accepted on threads).
"""
import json
import signal
import sys
import threading

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

app = DomainDispatcherApplication(create_backend_app)
one_at_a_time = threading.Lock()


def serialised(environ, start_response):
    with one_at_a_time:
        # The body is produced inside the lock too: what a request did is whole before the next.
        return list(app(environ, start_response))


server = make_server("127.0.0.1", 0, serialised, threaded=True)
print(json.dumps({"port": server.server_address[1]}), flush=True)


def stop(*_):
    threading.Thread(target=server.shutdown, daemon=True).start()


signal.signal(signal.SIGTERM, stop)


def watch_stdin():
    sys.stdin.read()
    stop()


threading.Thread(target=watch_stdin, daemon=True).start()
server.serve_forever()
