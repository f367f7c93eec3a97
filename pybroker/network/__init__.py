"""The network layer: listeners, connections that frame requests and write their responses in
order (sendfile from the segment files), and the inter-broker client."""
