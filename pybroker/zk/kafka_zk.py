"""The ZooKeeper operations a Kafka cluster performs, over a :class:`~pybroker.zk.client.ZnodeStore`.

Modelled on Kafka 3.9's ``KafkaZkClient`` (with the parts of ``AdminZkClient`` and
``ZkProducerIdManager`` that write znodes): the same paths, the same JSON
(:mod:`pybroker.zk.znodes`), the same transactions and the same answers to races.

* **Retries.** A request that fails with CONNECTIONLOSS is sent again once the client is
  connected, as Kafka's ``retryRequestsUntilConnected`` does; the operations below are written
  so that a repeated request is recognised (a registration finds its own znode, an election
  re-reads who won). A SESSIONEXPIRED is not retried: the caller re-registers.
* **Fencing.** Every controller write takes ``epoch_zk_version``, the version of
  ``/controller_epoch`` the controller's election left, and is sent as a multi
  ``[check(/controller_epoch, epoch_zk_version), write]``: if another controller was elected
  since, the check fails, nothing is written, and :class:`ControllerMovedError` is raised.
  ``epoch_zk_version=-1`` writes without the check (for callers that are not the controller).
* **Broker epochs.** A broker registers with an ephemeral ``/brokers/ids/<id>`` created empty
  and filled in one multi; the znode's czxid is the broker epoch.

Requests that do not depend on each other (reading many partition states, writing them) are
sent together, as Kafka pipelines them.

Kafka keeps these operations in one class; so does this module, assembled from its parts by
concern so that each stays readable: the plumbing (:mod:`pybroker.zk.kafka_zk_base`), brokers and
the controller (:mod:`~pybroker.zk.kafka_zk_brokers`), topics and partitions
(:mod:`~pybroker.zk.kafka_zk_topics`), configs and ACLs (:mod:`~pybroker.zk.kafka_zk_configs`)
and the legacy admin requests (:mod:`~pybroker.zk.kafka_zk_admin`). Callers use
:class:`KafkaZkClient` only.
"""

from __future__ import annotations

from pybroker.zk.kafka_zk_admin import AdminZkOps
from pybroker.zk.kafka_zk_brokers import BrokerZkOps
from pybroker.zk.kafka_zk_topics import TopicZkOps


class KafkaZkClient(BrokerZkOps, TopicZkOps, AdminZkOps):
    """Kafka's ZooKeeper operations. Every method is a coroutine run on the client's loop."""
