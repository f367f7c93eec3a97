"""A broker's replicas and its view of the cluster: the metadata cache, partitions and the replica
manager, the replica fetchers, ISR changes, the controller's requests."""
