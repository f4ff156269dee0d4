"""Milvus Lite's gRPC server for strata's tests: scripts/milvus.sh starts it.

    python milvus_lite_server.py DATA_DIR PORT

`milvus-lite server` itself binds with SO_REUSEPORT (a second server on the same port starts
and silently shares it) and ignores SIGINT when started in the background. This binds
127.0.0.1:PORT exclusively, prints "PORT <n>" once it accepts connections, and on SIGTERM or
SIGINT stops serving and closes the database (flushing its memtables). SIGKILL is a crash:
the next start replays the write-ahead log.
"""

import signal
import sys
import threading
from concurrent import futures

import grpc
from milvus_lite.adapter.grpc.servicer import MilvusServicer
from milvus_lite.db import MilvusLite
from pymilvus.grpc_gen import milvus_pb2_grpc


def main() -> None:
    data_dir, port = sys.argv[1], int(sys.argv[2])
    db = MilvusLite(data_dir)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=10),
        options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", 256 << 20),
            ("grpc.max_send_message_length", 256 << 20),
        ],
    )
    milvus_pb2_grpc.add_MilvusServiceServicer_to_server(MilvusServicer(db), server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    if bound == 0:
        sys.exit(f"milvus_lite_server: cannot bind 127.0.0.1:{port}")
    server.start()
    print(f"PORT {bound}", flush=True)
    done = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *_: done.set())
    done.wait()
    server.stop(grace=2).wait()
    db.close()


if __name__ == "__main__":
    main()
