// franz-consumer is one member of a consumer group with franz-go's group consumer, for the
// KIP-848 tests: franz-consumer BOOTSTRAP GROUP TOPIC [classic|consumer].
//
// With "consumer" (the default) it opts into the broker-side assignment of KIP-848
// (ServerSideBalancer with the sticky balancer); with "classic" it balances itself with the
// cooperative-sticky balancer. It commits every record synchronously before it reports it and
// prints one line per event, flushed:
//
//	assigned <topic>:<partition> ...
//	revoked <topic>:<partition> ...
//	record <topic> <partition> <offset>
//	error <text>
//
// SIGTERM leaves the group and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kgo"
)

func show(kind string, parts map[string][]int32) {
	var names []string
	for topic, ps := range parts {
		for _, p := range ps {
			names = append(names, fmt.Sprintf("%s:%d", topic, p))
		}
	}
	sort.Strings(names)
	fmt.Println(strings.TrimSpace(kind + " " + strings.Join(names, " ")))
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: franz-consumer BOOTSTRAP GROUP TOPIC [classic|consumer]")
		os.Exit(2)
	}
	bootstrap, group, topic := os.Args[1], os.Args[2], os.Args[3]
	protocol := "consumer"
	if len(os.Args) > 4 {
		protocol = os.Args[4]
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, p map[string][]int32) {
			show("assigned", p)
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, p map[string][]int32) {
			show("revoked", p)
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, p map[string][]int32) {
			show("lost", p)
		}),
	}
	if protocol == "consumer" {
		opts = append(opts, kgo.Balancers(kgo.StickyBalancer()), kgo.ServerSideBalancer())
	} else {
		opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	for ctx.Err() == nil {
		fetches := cl.PollFetches(ctx)
		fetches.EachError(func(t string, p int32, err error) {
			if ctx.Err() == nil {
				fmt.Println("error", t, p, err)
			}
		})
		rewound := map[string]map[int32]bool{}
		fetches.EachRecord(func(r *kgo.Record) {
			if rewound[r.Topic][r.Partition] {
				return // read again after the rewind below
			}
			if err := cl.CommitRecords(context.Background(), r); err != nil {
				// not committed: the record is read again by whoever holds the partition
				fmt.Println("error commit", err)
				cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{
					r.Topic: {r.Partition: {Epoch: -1, Offset: r.Offset}}})
				if rewound[r.Topic] == nil {
					rewound[r.Topic] = map[int32]bool{}
				}
				rewound[r.Topic][r.Partition] = true
				return
			}
			fmt.Println("record", r.Topic, r.Partition, r.Offset)
		})
	}
	cl.Close()
}
