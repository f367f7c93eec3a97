// Command kfake runs franz-go's kfake, an in-memory Kafka-compatible cluster, as one broker
// listening on 127.0.0.1 at the port given on the command line. pybroker's compatibility suite
// uses it as a peer broker to calibrate against (pybroker/testing/peers.py builds and starts it).
//
// Usage: kfake -port N [-partitions N] [-auto-create=true] [-log-level none|error|warn|info|debug]
//
// Once the listener is open it prints "listening 127.0.0.1:N" on stdout; it runs until SIGTERM
// or SIGINT, then closes the cluster and exits 0. Nothing is kept on disk.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func logLevel(name string) (kfake.LogLevel, error) {
	switch strings.ToLower(name) {
	case "none":
		return kfake.LogLevelNone, nil
	case "error":
		return kfake.LogLevelError, nil
	case "warn":
		return kfake.LogLevelWarn, nil
	case "info":
		return kfake.LogLevelInfo, nil
	case "debug":
		return kfake.LogLevelDebug, nil
	}
	return kfake.LogLevelNone, fmt.Errorf("unknown log level %q", name)
}

func main() {
	port := flag.Int("port", 0, "port to listen on at 127.0.0.1 (required)")
	partitions := flag.Int("partitions", 1, "partitions of a topic created without a count "+
		"(Kafka's num.partitions default is 1)")
	autoCreate := flag.Bool("auto-create", true, "create topics a Metadata request names "+
		"(Kafka's auto.create.topics.enable default is true)")
	level := flag.String("log-level", "warn", "none, error, warn, info or debug (to stderr)")
	flag.Parse()
	if *port <= 0 || *port > 65535 {
		fmt.Fprintln(os.Stderr, "kfake: -port N is required (1-65535)")
		os.Exit(2)
	}
	lvl, err := logLevel(*level)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		os.Exit(2)
	}
	opts := []kfake.Opt{
		kfake.Ports(*port),
		kfake.ClusterID("kfake-peer"),
		kfake.DefaultNumPartitions(*partitions),
		kfake.WithLogger(kfake.BasicLogger(os.Stderr, lvl)),
	}
	if *autoCreate {
		opts = append(opts, kfake.AllowAutoTopicCreation())
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)

	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake: cannot start:", err)
		os.Exit(1)
	}
	for _, addr := range cluster.ListenAddrs() {
		fmt.Println("listening", addr)
	}
	<-sigs
	cluster.Close()
}
