"""The coordinators, each over its internal topic: producer ids, the classic group coordinator
(``__consumer_offsets``) and the transaction coordinator (``__transaction_state``)."""
