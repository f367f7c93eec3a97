"""Tooling for running pybroker and Apache Kafka side by side, outside the broker itself.

Shared by the test suite (``tests/``), the scripts (``scripts/``: benchmarks, frame capture, a
reference Kafka by hand) and anything else that needs a real broker process to talk to:

- :mod:`~pybroker.testing.broker_process` — a pybroker server as a child process, started as a
  user starts it (``pybroker serve``), on a free port of 127.0.0.1 with its own data directory;
  ``ProxiedBroker`` puts a frame proxy in front of it.
- :mod:`~pybroker.testing.reference_kafka` — a reference Apache Kafka 3.9 broker with its
  ZooKeeper, started from the Maven jars of ``scripts/kafka-tools-deps.sh``.
- :mod:`~pybroker.testing.reference_cluster` — brokers 1..N of Apache Kafka 3.9 on one
  ZooKeeper, each stopped or killed by its pid, for side-by-side cluster benchmarks.
- :mod:`~pybroker.testing.peers` — other Kafka-compatible brokers the compatibility suite is
  calibrated against: franz-go's kfake, built from ``tools/kfake`` with the Go toolchain into
  ``.cache/go`` and started by its pid, and the peers that cannot be had here, with the reason.
- :mod:`~pybroker.testing.frame_proxy` — a TCP proxy that shows each request frame a client
  sends to an observer.
- :mod:`~pybroker.testing.wire_client` — a minimal blocking Kafka client over a raw socket, on
  the generated codecs.
- :mod:`~pybroker.testing.inprocess` — a pybroker inside the test process (its own event loop
  on a background thread) with fault rules (:mod:`~pybroker.testing.faults`), retention and
  compaction on demand, and a look at what was stored;
  :mod:`~pybroker.testing.inprocess_cluster` runs several as a ZooKeeper-mode cluster, and
  :mod:`~pybroker.testing.pytest_plugin` gives them to any test suite as pytest fixtures
  (``kafka_bootstrap``, ``kafka_broker``, ``kafka_cluster``, ...), registered by the
  ``pytest11`` entry point when pybroker is installed.
- :mod:`~pybroker.testing.testcontainer` — ``PyBrokerContainer``, the container image with the
  surface of testcontainers' ``KafkaContainer`` (``from pybroker.testing import
  PyBrokerContainer`` imports it on first use); :mod:`~pybroker.testing.containers` — the image's
  build and containers from the command line (``make image``, the container tests).
- :mod:`~pybroker.testing.nemesis`, :mod:`~pybroker.testing.chaos_workload`,
  :mod:`~pybroker.testing.chaos_check` and :mod:`~pybroker.testing.chaos` — the chaos run of
  ``tests/cluster/test_chaos.py`` and ``make chaos``: faults (kill -9, SIGSTOP, network cuts by
  iptables over per-broker cgroups), acks=all producers and a consumer group, and the checker.

Importing the package imports none of them; import the module you need. The broker runtime
never imports this package.

Except for the in-process broker and its plugin, which need only pybroker installed (and, for
``kafka_cluster``, the ZooKeeper of Kafka's jars below), the modules are meant to be used from a
checkout of the repository, which is what the editable install of ``make setup`` gives: they
find the checkout as the directory above ``pybroker/`` (``broker_process.REPO_ROOT``) and take
from it ``config/server.properties`` (the brokers' default configuration, left out when the file
is absent), ``scripts/kafka-tools-deps.sh`` and ``.cache/kafka-tools/`` (the reference Kafka's
jars; without them ``ReferenceKafka`` says what is missing instead of starting).
"""


def __getattr__(name: str) -> object:
    # ``from pybroker.testing import PyBrokerContainer``, as testcontainers users import theirs,
    # without importing testcontainers with the package
    if name == "PyBrokerContainer":
        from pybroker.testing.testcontainer import PyBrokerContainer

        return PyBrokerContainer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
