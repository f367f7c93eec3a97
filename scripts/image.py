"""``make image``: build the pybroker container image from docker/Dockerfile and report its size
and its time to ready (from ``run`` to the first ApiVersions answer through a published port);
then the ZooKeeper image docker/compose.yaml runs (docker/zookeeper, ZooKeeper from Debian's
packages), unless ``--no-zookeeper``.

podman is used where installed, docker otherwise (``--engine`` chooses). The base image is
``--base-image`` (default: Debian bookworm with Python 3.11 built from Debian packages by
scripts/base-image.sh and cached under .cache/images, for machines without an image registry;
``python:3.12-slim`` where Docker Hub is reachable).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from pybroker.testing.broker_process import free_port
from pybroker.testing.containers import (
    IMAGE,
    LOCAL_BASE_IMAGE,
    ZOOKEEPER_IMAGE,
    Container,
    ContainerError,
    build_image,
    build_zookeeper_image,
    find_engine,
    wait_serving,
)


def time_to_ready(engine: str, image: str) -> tuple[float, float]:
    """(seconds from ``run`` to the first ApiVersions answer, seconds ``stop`` took)."""
    port = free_port()
    container = Container(engine, image, ports=[f"127.0.0.1:{port}:9092"], env={
        "KAFKA_ADVERTISED_LISTENERS": f"PLAINTEXT://127.0.0.1:{port}"})
    started = time.monotonic()
    try:
        container.start()
        wait_serving(f"127.0.0.1:{port}", container=container)
        ready = time.monotonic() - started
        stopped = container.stop()
        if container.exit_code() != 0:
            raise ContainerError(f"the broker exited {container.exit_code()} on stop\n"
                                 f"{container.logs()}")
        return ready, stopped
    finally:
        container.remove()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=None, help="podman or docker (default: the one found)")
    parser.add_argument("--image", default=IMAGE)
    parser.add_argument("--base-image", default=LOCAL_BASE_IMAGE)
    parser.add_argument("--runs", type=int, default=3, help="containers started to time")
    parser.add_argument("--zookeeper-image", default=ZOOKEEPER_IMAGE)
    parser.add_argument("--no-zookeeper", action="store_true")
    args = parser.parse_args(argv)
    engine = find_engine(args.engine)
    if engine is None:
        print("neither podman nor docker is installed: run make system-deps", file=sys.stderr)
        return 2
    print(f"building {args.image} with {engine} on {args.base_image} ...", flush=True)
    try:
        build = build_image(engine, args.image, args.base_image)
        print(f"built in {build.seconds:.1f} s; image size {build.size_bytes / 1e6:.0f} MB",
              flush=True)
        timings = [time_to_ready(engine, args.image) for _ in range(max(1, args.runs))]
        if not args.no_zookeeper:
            zookeeper = build_zookeeper_image(engine, args.zookeeper_image, args.base_image)
            print(f"{zookeeper.image}: built in {zookeeper.seconds:.1f} s; "
                  f"image size {zookeeper.size_bytes / 1e6:.0f} MB", flush=True)
    except ContainerError as e:
        print(e, file=sys.stderr)
        return 1
    ready = [r for r, _ in timings]
    stops = [s for _, s in timings]
    print(f"time to ready (run -> ApiVersions answered), {len(ready)} runs: "
          f"median {statistics.median(ready):.2f} s, max {max(ready):.2f} s")
    print(f"clean stop (SIGINT -> exit 0): median {statistics.median(stops):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
