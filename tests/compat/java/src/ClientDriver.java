import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.DescribeReplicaLogDirsResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListPartitionReassignmentsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Drives the Kafka Java clients from the command line for pybroker's compatibility tests.
 *
 * <pre>
 * ClientDriver produce        --bootstrap B --topic T [--count N] [--compression C] [--acks A]
 * ClientDriver consume-assign --bootstrap B --topic T [--partitions 0,1] [--from-beginning |
 *                             --offset N | --from-timestamp MS] [--count N] [--timeout-ms X]
 * ClientDriver consume-group  --bootstrap B --topic T[,T2] --group G --count N [--timeout-ms X]
 * ClientDriver admin OP       --bootstrap B [OP options]    (OP "script": one OP per stdin line)
 * ClientDriver txn-produce    --bootstrap B --topic T --transactional-id ID --plan c10,a5,c3
 *                             [--partition P]   (transactions of 10, 5 and 3 records: commit,
 *                             abort, commit)
 * ClientDriver txn-fence      --bootstrap B --topic T --transactional-id ID   (a zombie fenced
 *                             by a second producer with the same transactional id)
 * </pre>
 *
 * Every command accepts {@code --config key=value} (repeatable) for any client property. Output
 * is one JSON object per line on stdout; the clients' own log (warnings and up) goes to stderr.
 * Keys, values and header values are base64 so that arbitrary bytes survive the trip.
 *
 * <p>Without {@code --count}, {@code produce} reads records from stdin, one per line, as
 * tab-separated fields: partition, timestamp, key, value, then any number of headers written
 * {@code name:value}; names and byte fields are base64 and {@code -} stands for null (for the
 * partition and timestamp: let the producer choose).
 */
public final class ClientDriver {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final long ADMIN_TIMEOUT_S = 30;

    private ClientDriver() {}

    public static void main(String[] argv) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        if (argv.length == 0) {
            System.exit(usage("no command"));
        }
        String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
        int code;
        try {
            code = switch (argv[0]) {
                case "produce" -> produce(Args.parse(rest));
                case "consume-assign" -> consumeAssign(Args.parse(rest));
                case "consume-group" -> consumeGroup(Args.parse(rest));
                case "admin" -> admin(rest);
                case "txn-produce" -> txnProduce(Args.parse(rest));
                case "txn-fence" -> txnFence(Args.parse(rest));
                default -> usage("unknown command " + argv[0]);
            };
        } catch (IllegalArgumentException e) {
            code = usage(e.getMessage());
        } catch (Exception e) {
            // what the client threw, for the caller to read: {"error": {"class", "message"}}
            emit(obj("error", error(e)));
            code = 1;
        }
        System.out.flush();
        System.exit(code);
    }

    private static int usage(String why) {
        System.err.println("ClientDriver: " + why
                + "\nusage: ClientDriver produce|consume-assign|consume-group|admin OP --bootstrap HOST:PORT ...");
        return 2;
    }

    // ---------------------------------------------------------------------------------------
    // produce

    private static int produce(Args a) throws Exception {
        Properties props = a.clientProps();
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        // fail inside the caller's patience rather than after the two-minute default
        props.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        props.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        a.opt("compression").ifPresent(c -> props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, c));
        a.opt("acks").ifPresent(c -> props.put(ProducerConfig.ACKS_CONFIG, c));
        a.opt("linger-ms").ifPresent(c -> props.put(ProducerConfig.LINGER_MS_CONFIG, c));
        String topic = a.required("topic");

        Integer partition = a.opt("partition").map(Integer::valueOf).orElse(null);
        List<ProducerRecord<byte[], byte[]>> records = a.opt("count").isPresent()
                ? generatedRecords(topic, (int) a.longOpt("count", 0), partition)
                : stdinRecords(topic);

        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (ProducerRecord<byte[], byte[]> r : records) {
                sent.add(producer.send(r));
            }
            producer.flush();
        }
        int failed = 0;
        for (int i = 0; i < sent.size(); i++) {
            try {
                RecordMetadata m = sent.get(i).get();
                emit(obj("index", i, "partition", m.partition(), "offset", m.offset(), "timestamp", m.timestamp()));
            } catch (ExecutionException e) {
                failed++;
                emit(obj("index", i, "error", error(e)));
            }
        }
        emit(obj("summary", obj("sent", sent.size(), "acked", sent.size() - failed, "failed", failed)));
        return failed == 0 ? 0 : 1;
    }

    private static KafkaProducer<byte[], byte[]> transactionalProducer(Args a, String transactionalId) {
        Properties props = a.clientProps();
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        props.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return new KafkaProducer<>(props);
    }

    /** One producer runs the transactions of --plan (c = commit, a = abort, then a count);
     * prints each transaction's outcome and the offsets its records got. */
    private static int txnProduce(Args a) throws Exception {
        String topic = a.required("topic");
        Integer partition = a.opt("partition").map(Integer::valueOf).orElse(null);
        try (KafkaProducer<byte[], byte[]> producer = transactionalProducer(a, a.required("transactional-id"))) {
            producer.initTransactions();
            int txn = 0;
            for (String step : a.required("plan").split(",")) {
                boolean commit = step.charAt(0) == 'c';
                int n = Integer.parseInt(step.substring(1));
                producer.beginTransaction();
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    byte[] value = ("txn" + txn + "-" + i).getBytes(StandardCharsets.UTF_8);
                    sent.add(producer.send(new ProducerRecord<>(topic, partition, null, value)));
                }
                producer.flush();
                List<Long> offsets = new ArrayList<>();
                for (Future<RecordMetadata> f : sent) {
                    offsets.add(f.get().offset());
                }
                if (commit) {
                    producer.commitTransaction();
                } else {
                    producer.abortTransaction();
                }
                emit(obj("txn", txn, "outcome", commit ? "commit" : "abort", "offsets", offsets));
                txn++;
            }
        }
        return 0;
    }

    /** A zombie: the first producer's open transaction is fenced when a second producer with
     * the same transactional id initialises; its commit must fail and its records stay out of
     * read_committed reads, while the second producer's transaction commits. */
    private static int txnFence(Args a) throws Exception {
        String topic = a.required("topic");
        String id = a.required("transactional-id");
        try (KafkaProducer<byte[], byte[]> zombie = transactionalProducer(a, id);
             KafkaProducer<byte[], byte[]> successor = transactionalProducer(a, id)) {
            zombie.initTransactions();
            zombie.beginTransaction();
            for (int i = 0; i < 3; i++) {
                zombie.send(new ProducerRecord<>(topic, ("zombie-" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
            successor.initTransactions();
            try {
                zombie.commitTransaction();
                emit(obj("zombie", "committed"));
            } catch (Exception e) {
                emit(obj("zombie", error(e)));
            }
            successor.beginTransaction();
            for (int i = 0; i < 2; i++) {
                successor.send(new ProducerRecord<>(topic, ("successor-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            successor.commitTransaction();
            emit(obj("successor", "committed"));
        }
        return 0;
    }

    private static List<ProducerRecord<byte[], byte[]>> generatedRecords(String topic, int count, Integer partition) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(new ProducerRecord<>(topic, partition, utf8("key-" + i), utf8("value-" + i)));
        }
        return out;
    }

    private static List<ProducerRecord<byte[], byte[]>> stdinRecords(String topic) throws Exception {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (String line : stdinLines()) {
            String[] f = line.split("\t", -1);
            if (f.length < 4) {
                throw new IllegalArgumentException("record line needs partition, timestamp, key, value: " + line);
            }
            List<Header> headers = new ArrayList<>();
            for (int i = 4; i < f.length; i++) {
                String[] h = f[i].split(":", 2);
                headers.add(new RecordHeader(new String(unb64(h[0]), StandardCharsets.UTF_8), unb64(h[1])));
            }
            Integer partition = f[0].equals("-") ? null : Integer.valueOf(f[0]);
            Long timestamp = f[1].equals("-") ? null : Long.valueOf(f[1]);
            out.add(new ProducerRecord<>(topic, partition, timestamp, unb64(f[2]), unb64(f[3]), headers));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------
    // consumers

    private static KafkaConsumer<byte[], byte[]> consumer(Properties props) {
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.putIfAbsent(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props);
    }

    /** assign() + seek: no group, reads the given partitions up to a count or to their end. */
    private static int consumeAssign(Args a) {
        String topic = a.required("topic");
        long deadline = System.currentTimeMillis() + a.longOpt("timeout-ms", 30000);
        try (KafkaConsumer<byte[], byte[]> c = consumer(a.clientProps())) {
            List<TopicPartition> tps = a.opt("partitions")
                    .map(s -> Arrays.stream(s.split(","))
                            .map(p -> new TopicPartition(topic, Integer.parseInt(p))).toList())
                    .orElseGet(() -> c.partitionsFor(topic).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .sorted((x, y) -> Integer.compare(x.partition(), y.partition())).toList());
            c.assign(tps);
            if (a.opt("offset").isPresent()) {
                long offset = Long.parseLong(a.required("offset"));
                tps.forEach(tp -> c.seek(tp, offset));
            } else if (a.opt("from-timestamp").isPresent()) {
                long ts = Long.parseLong(a.required("from-timestamp"));
                Map<TopicPartition, Long> query = tps.stream().collect(Collectors.toMap(tp -> tp, tp -> ts));
                for (Map.Entry<TopicPartition, OffsetAndTimestamp> e : c.offsetsForTimes(query).entrySet()) {
                    if (e.getValue() == null) {
                        c.seekToEnd(List.of(e.getKey()));
                    } else {
                        c.seek(e.getKey(), e.getValue().offset());
                    }
                }
            } else {
                c.seekToBeginning(tps);
            }
            long count = a.longOpt("count", -1);
            Map<TopicPartition, Long> ends = c.endOffsets(tps);
            long read = 0;
            boolean done = false;
            while (!done) {
                if (System.currentTimeMillis() > deadline) {
                    emit(obj("summary", obj("records", read, "timedOut", true, "endOffsets", partitionMap(ends))));
                    return 1;
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(POLL)) {
                    if (count >= 0 && read >= count) {
                        break;
                    }
                    emit(record(r));
                    read++;
                }
                done = count >= 0 ? read >= count : tps.stream().allMatch(tp -> c.position(tp) >= ends.get(tp));
            }
            emit(obj("summary", obj("records", read, "timedOut", false, "endOffsets", partitionMap(ends))));
            return 0;
        }
    }

    /** subscribe() with a group id: prints each assignment, the records, then commits and
     * prints the offsets the coordinator returns for them. */
    private static int consumeGroup(Args a) {
        List<String> topics = List.of(a.required("topic").split(","));
        Properties props = a.clientProps();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, a.required("group"));
        props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        long count = Long.parseLong(a.required("count"));
        long deadline = System.currentTimeMillis() + a.longOpt("timeout-ms", 30000);
        try (KafkaConsumer<byte[], byte[]> c = consumer(props)) {
            c.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    emit(obj("revoked", partitionList(partitions)));
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    emit(obj("assigned", partitionList(partitions)));
                }
            });
            long read = 0;
            while (read < count) {
                if (System.currentTimeMillis() > deadline) {
                    emit(obj("summary", obj("records", read, "timedOut", true)));
                    return 1;
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(POLL)) {
                    emit(record(r));
                    read++;
                }
            }
            c.commitSync(Duration.ofSeconds(ADMIN_TIMEOUT_S));
            Map<TopicPartition, OffsetAndMetadata> committed =
                    c.committed(new HashSet<>(c.assignment()), Duration.ofSeconds(ADMIN_TIMEOUT_S));
            Map<String, Object> offsets = new TreeMap<>();
            committed.forEach((tp, om) -> offsets.put(tp.toString(), om == null ? null : om.offset()));
            emit(obj("committed", offsets));
            emit(obj("summary", obj("records", read, "timedOut", false, "groupMetadata",
                    obj("groupId", c.groupMetadata().groupId(), "generationId", c.groupMetadata().generationId(),
                            "memberId", c.groupMetadata().memberId()))));
            return 0;
        }
    }

    private static Map<String, Object> record(ConsumerRecord<byte[], byte[]> r) {
        List<Object> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(Arrays.asList(h.key(), h.value()));
        }
        return obj("topic", r.topic(), "partition", r.partition(), "offset", r.offset(),
                "timestamp", r.timestamp(), "timestampType", r.timestampType().name,
                "key", r.key(), "value", r.value(), "headers", headers,
                "leaderEpoch", r.leaderEpoch().orElse(null));
    }

    // ---------------------------------------------------------------------------------------
    // admin

    private static int admin(String[] argv) throws Exception {
        if (argv.length == 0) {
            throw new IllegalArgumentException("admin needs an operation");
        }
        String op = argv[0];
        Args a = Args.parse(Arrays.copyOfRange(argv, 1, argv.length));
        Properties props = a.clientProps();
        props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        try (Admin admin = Admin.create(props)) {
            if (!op.equals("script")) {
                return adminOp(admin, op, a) ? 0 : 1;
            }
            boolean ok = true;
            for (String line : stdinLines()) {
                String[] words = line.trim().split("\\s+");
                ok &= adminOp(admin, words[0], Args.parse(Arrays.copyOfRange(words, 1, words.length)));
            }
            return ok ? 0 : 1;
        }
    }

    /** Runs one operation and prints {"op": ..., "result": ...} or {"op": ..., "error": ...};
     * failures of single topics are reported inside the result, as {"error": ...}. */
    private static boolean adminOp(Admin admin, String op, Args a) {
        Object result;
        try {
            result = switch (op) {
                case "create-topics" -> createTopics(admin, a);
                case "list-topics" -> listTopics(admin, a);
                case "describe-topics" -> describeTopics(admin, a);
                case "delete-topics" -> perKey(admin.deleteTopics(a.list("topic")).topicNameValues(), (t, v) -> obj());
                case "create-partitions" -> createPartitions(admin, a);
                case "describe-cluster" -> describeCluster(admin);
                case "list-offsets" -> listOffsets(admin, a);
                case "describe-configs" -> describeConfigs(admin, a);
                case "describe-log-dirs" -> describeLogDirs(admin, a);
                case "alter-replica-log-dirs" -> alterReplicaLogDirs(admin, a);
                case "describe-replica-log-dirs" -> describeReplicaLogDirs(admin, a);
                case "list-partition-reassignments" -> listPartitionReassignments(admin, a);
                case "alter-partition-reassignments" -> alterPartitionReassignments(admin, a);
                case "elect-leaders" -> electLeaders(admin, a);
                case "describe-producers" -> describeProducers(admin, a);
                default -> throw new IllegalArgumentException("unknown admin operation " + op);
            };
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            emit(obj("op", op, "error", error(e)));
            return false;
        }
        emit(obj("op", op, "result", result));
        return true;
    }

    private static Object createTopics(Admin admin, Args a) throws InterruptedException {
        int partitions = (int) a.longOpt("partitions", 1);
        short replication = (short) a.longOpt("replication-factor", 1);
        Map<String, String> configs = a.keyValues("topic-config");
        List<NewTopic> topics = a.list("topic").stream()
                .map(t -> new NewTopic(t, partitions, replication).configs(configs)).toList();
        CreateTopicsResult r = admin.createTopics(topics);
        return perKey(r.values(), (t, v) -> {
            return obj("topicId", String.valueOf(get(r.topicId(t))), "partitions", get(r.numPartitions(t)),
                    "replicationFactor", get(r.replicationFactor(t)));
        });
    }

    /** --topic T[,T2] --total N: grow each topic to N partitions. */
    private static Object createPartitions(Admin admin, Args a) throws InterruptedException {
        NewPartitions total = NewPartitions.increaseTo((int) a.longOpt("total", 0));
        Map<String, NewPartitions> request = new LinkedHashMap<>();
        a.list("topic").forEach(t -> request.put(t, total));
        return perKey(admin.createPartitions(request).values(), (t, v) -> obj());
    }

    private static Object listTopics(Admin admin, Args a) throws Exception {
        ListTopicsOptions options = new ListTopicsOptions().listInternal(a.flag("internal"));
        Collection<TopicListing> listings = admin.listTopics(options).listings().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        Map<String, Object> out = new TreeMap<>();
        for (TopicListing l : listings) {
            out.put(l.name(), obj("topicId", String.valueOf(l.topicId()), "internal", l.isInternal()));
        }
        return out;
    }

    private static Object describeTopics(Admin admin, Args a) throws InterruptedException {
        return perKey(admin.describeTopics(a.list("topic")).topicNameValues(), (t, v) -> {
            TopicDescription d = (TopicDescription) v;
            List<Object> parts = new ArrayList<>();
            for (TopicPartitionInfo p : d.partitions()) {
                parts.add(obj("partition", p.partition(), "leader", nodeId(p.leader()),
                        "replicas", p.replicas().stream().map(ClientDriver::nodeId).toList(),
                        "isr", p.isr().stream().map(ClientDriver::nodeId).toList()));
            }
            return obj("name", d.name(), "topicId", String.valueOf(d.topicId()), "internal", d.isInternal(),
                    "partitions", parts);
        });
    }

    private static Object describeCluster(Admin admin) throws Exception {
        DescribeClusterResult r = admin.describeCluster();
        return obj("clusterId", r.clusterId().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS),
                "controller", node(r.controller().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS)),
                "nodes", r.nodes().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS).stream()
                        .map(ClientDriver::node).toList());
    }

    /** --spec earliest | latest | max-timestamp | timestamp:MS, for --partitions or all of them. */
    private static Object listOffsets(Admin admin, Args a) throws Exception {
        String topic = a.required("topic");
        String spec = a.required("spec");
        OffsetSpec offsetSpec = switch (spec.split(":")[0]) {
            case "earliest" -> OffsetSpec.earliest();
            case "latest" -> OffsetSpec.latest();
            case "max-timestamp" -> OffsetSpec.maxTimestamp();
            case "timestamp" -> OffsetSpec.forTimestamp(Long.parseLong(spec.split(":", 2)[1]));
            default -> throw new IllegalArgumentException("unknown offset spec " + spec);
        };
        List<Integer> partitions = a.opt("partitions")
                .map(s -> Arrays.stream(s.split(",")).map(Integer::valueOf).toList())
                .orElse(null);
        if (partitions == null) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS).get(topic);
            partitions = d.partitions().stream().map(TopicPartitionInfo::partition).toList();
        }
        Map<TopicPartition, OffsetSpec> query = new LinkedHashMap<>();
        partitions.forEach(p -> query.put(new TopicPartition(topic, p), offsetSpec));
        ListOffsetsResult r = admin.listOffsets(query);
        Map<String, Object> out = new TreeMap<>();
        for (TopicPartition tp : query.keySet()) {
            try {
                ListOffsetsResult.ListOffsetsResultInfo info =
                        r.partitionResult(tp).get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
                out.put(String.valueOf(tp.partition()), obj("offset", info.offset(), "timestamp", info.timestamp(),
                        "leaderEpoch", info.leaderEpoch().orElse(null)));
            } catch (ExecutionException e) {
                out.put(String.valueOf(tp.partition()), obj("error", error(e)));
            }
        }
        return out;
    }

    /** --topic T[,T2] or --broker ID[,ID2]; every entry with its value, source and flags. */
    private static Object describeConfigs(Admin admin, Args a) throws InterruptedException {
        List<ConfigResource> resources = new ArrayList<>();
        if (a.opt("topic").isPresent()) {
            a.list("topic").forEach(t -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t)));
        }
        if (a.opt("broker").isPresent()) {
            a.list("broker").forEach(b -> resources.add(new ConfigResource(ConfigResource.Type.BROKER, b)));
        }
        Map<String, KafkaFuture<?>> futures = new LinkedHashMap<>();
        admin.describeConfigs(resources).values()
                .forEach((res, f) -> futures.put(res.type().name().toLowerCase() + ":" + res.name(), f));
        return perKey(futures, (res, v) -> {
            Map<String, Object> entries = new TreeMap<>();
            for (ConfigEntry e : ((Config) v).entries()) {
                entries.put(e.name(), obj("value", e.value(), "source", e.source().name(),
                        "readOnly", e.isReadOnly(), "sensitive", e.isSensitive()));
            }
            return entries;
        });
    }

    /** [--broker ID[,ID2]] (default: every broker): per broker, each log dir with its error,
     * volume sizes and replicas ("topic-partition" -> size, offset lag, future flag). */
    private static Object describeLogDirs(Admin admin, Args a) throws Exception {
        List<Integer> brokers = a.opt("broker").isPresent()
                ? a.list("broker").stream().map(Integer::valueOf).toList()
                : admin.describeCluster().nodes().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS).stream()
                        .map(Node::id).toList();
        Map<Integer, Map<String, LogDirDescription>> all =
                admin.describeLogDirs(brokers).allDescriptions().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        Map<String, Object> out = new TreeMap<>();
        all.forEach((broker, dirs) -> {
            Map<String, Object> byDir = new TreeMap<>();
            dirs.forEach((dir, d) -> {
                Map<String, Object> replicas = new TreeMap<>();
                d.replicaInfos().forEach((tp, r) -> replicas.put(tp.toString(),
                        obj("size", r.size(), "offsetLag", r.offsetLag(), "isFuture", r.isFuture())));
                byDir.put(dir, obj("error", d.error() == null ? null : error(d.error()),
                        "totalBytes", d.totalBytes().isPresent() ? d.totalBytes().getAsLong() : null,
                        "usableBytes", d.usableBytes().isPresent() ? d.usableBytes().getAsLong() : null,
                        "replicas", replicas));
            });
            out.put(String.valueOf(broker), byDir);
        });
        return out;
    }

    /** --topic T --partitions 0,1 --broker ID --dir PATH: "topic-partition-broker" -> {} when the
     * move started (or the replica is there already), {"error": ...} otherwise. */
    private static Object alterReplicaLogDirs(Admin admin, Args a) throws InterruptedException {
        String dir = a.required("dir");
        Map<TopicPartitionReplica, String> moves = new LinkedHashMap<>();
        replicas(a).forEach(r -> moves.put(r, dir));
        Map<String, KafkaFuture<?>> futures = new LinkedHashMap<>();
        admin.alterReplicaLogDirs(moves).values().forEach((r, f) -> futures.put(r.toString(), f));
        return perKey(futures, (r, v) -> obj());
    }

    /** --topic T --partitions 0,1 --broker ID: "topic-partition-broker" -> its current log dir and
     * offset lag, and the dir and lag of the copy being moved into another dir (null when none). */
    private static Object describeReplicaLogDirs(Admin admin, Args a) throws Exception {
        Map<TopicPartitionReplica, DescribeReplicaLogDirsResult.ReplicaLogDirInfo> infos =
                admin.describeReplicaLogDirs(replicas(a)).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        Map<String, Object> out = new TreeMap<>();
        infos.forEach((r, i) -> out.put(r.toString(), obj(
                "currentReplicaLogDir", i.getCurrentReplicaLogDir(),
                "currentReplicaOffsetLag", i.getCurrentReplicaOffsetLag(),
                "futureReplicaLogDir", i.getFutureReplicaLogDir(),
                "futureReplicaOffsetLag", i.getFutureReplicaOffsetLag())));
        return out;
    }

    private static List<TopicPartitionReplica> replicas(Args a) {
        String topic = a.required("topic");
        int broker = Integer.parseInt(a.required("broker"));
        return a.list("partitions").stream()
                .map(p -> new TopicPartitionReplica(topic, Integer.parseInt(p), broker)).toList();
    }

    /** [--topic T --partitions 0,1] (default: all): "topic-partition" -> replicas, adding, removing. */
    private static Object listPartitionReassignments(Admin admin, Args a) throws Exception {
        Set<TopicPartition> partitions = topicPartitions(a);
        ListPartitionReassignmentsResult r = partitions == null
                ? admin.listPartitionReassignments() : admin.listPartitionReassignments(partitions);
        Map<String, Object> out = new TreeMap<>();
        r.reassignments().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS).forEach((tp, p) -> out.put(tp.toString(),
                obj("replicas", p.replicas(), "adding", p.addingReplicas(), "removing", p.removingReplicas())));
        return out;
    }

    /** --topic T --partitions 0,1 (--replicas 0[,1] | --cancel): the outcome per partition. */
    private static Object alterPartitionReassignments(Admin admin, Args a) throws InterruptedException {
        Set<TopicPartition> partitions = requiredTopicPartitions(a);
        Optional<NewPartitionReassignment> target = a.flag("cancel") ? Optional.empty()
                : Optional.of(new NewPartitionReassignment(
                        a.list("replicas").stream().map(Integer::valueOf).toList()));
        Map<TopicPartition, Optional<NewPartitionReassignment>> request = new LinkedHashMap<>();
        partitions.forEach(tp -> request.put(tp, target));
        Map<String, KafkaFuture<?>> futures = new LinkedHashMap<>();
        admin.alterPartitionReassignments(request).values().forEach((tp, f) -> futures.put(tp.toString(), f));
        return perKey(futures, (tp, v) -> obj());
    }

    /** --type preferred|unclean [--topic T --partitions 0,1] (default: all partitions):
     * "topic-partition" -> {} when elected, {"error": ...} otherwise. */
    private static Object electLeaders(Admin admin, Args a) throws Exception {
        ElectionType type = ElectionType.valueOf(a.required("type").toUpperCase());
        Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(type, topicPartitions(a))
                .partitions().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        Map<String, Object> out = new TreeMap<>();
        results.forEach((tp, e) -> out.put(tp.toString(), e.isPresent() ? obj("error", error(e.get())) : obj()));
        return out;
    }

    /** --topic T --partitions 0,1: "topic-partition" -> the active producers of its leader. */
    private static Object describeProducers(Admin admin, Args a) throws InterruptedException {
        Set<TopicPartition> partitions = requiredTopicPartitions(a);
        DescribeProducersResult r = admin.describeProducers(partitions);
        Map<String, KafkaFuture<?>> futures = new LinkedHashMap<>();
        partitions.forEach(tp -> futures.put(tp.toString(), r.partitionResult(tp)));
        return perKey(futures, (tp, v) -> {
            List<Object> producers = new ArrayList<>();
            for (ProducerState s : ((DescribeProducersResult.PartitionProducerState) v).activeProducers()) {
                producers.add(obj("producerId", s.producerId(), "producerEpoch", s.producerEpoch(),
                        "lastSequence", s.lastSequence(), "lastTimestamp", s.lastTimestamp(),
                        "coordinatorEpoch", s.coordinatorEpoch().isPresent() ? s.coordinatorEpoch().getAsInt() : null,
                        "currentTransactionStartOffset", s.currentTransactionStartOffset().isPresent()
                                ? s.currentTransactionStartOffset().getAsLong() : null));
            }
            return producers;
        });
    }

    /** --topic T --partitions 0,1 as partitions; null without --topic. */
    private static Set<TopicPartition> topicPartitions(Args a) {
        if (a.opt("topic").isEmpty()) {
            return null;
        }
        return requiredTopicPartitions(a);
    }

    private static Set<TopicPartition> requiredTopicPartitions(Args a) {
        String topic = a.required("topic");
        Set<TopicPartition> out = new LinkedHashSet<>();
        a.list("partitions").forEach(p -> out.add(new TopicPartition(topic, Integer.parseInt(p))));
        return out;
    }

    /** Waits for each future and maps its key to {@code render(key, value)} or to {"error": ...}. */
    private static Map<String, Object> perKey(Map<String, ? extends KafkaFuture<?>> futures,
            ThrowingFunction render) throws InterruptedException {
        Map<String, Object> out = new TreeMap<>();
        for (Map.Entry<String, ? extends KafkaFuture<?>> e : futures.entrySet()) {
            try {
                out.put(e.getKey(), render.apply(e.getKey(), e.getValue().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS)));
            } catch (InterruptedException ex) {
                throw ex;
            } catch (Exception ex) {
                out.put(e.getKey(), obj("error", error(ex)));
            }
        }
        return out;
    }

    @FunctionalInterface
    private interface ThrowingFunction {
        Object apply(String key, Object value) throws Exception;
    }

    private static Object get(KafkaFuture<?> f) {
        try {
            return f.get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            return obj("error", error(e));
        }
    }

    private static Integer nodeId(Node n) {
        return n == null || n.isEmpty() ? null : n.id();
    }

    private static Map<String, Object> node(Node n) {
        return n == null ? null : obj("id", n.id(), "host", n.host(), "port", n.port(), "rack", n.rack());
    }

    private static List<Object> partitionList(Collection<TopicPartition> partitions) {
        return partitions.stream()
                .sorted((x, y) -> x.topic().equals(y.topic()) ? Integer.compare(x.partition(), y.partition())
                        : x.topic().compareTo(y.topic()))
                .map(tp -> (Object) obj("topic", tp.topic(), "partition", tp.partition())).toList();
    }

    private static Map<String, Object> partitionMap(Map<TopicPartition, Long> offsets) {
        Map<String, Object> out = new TreeMap<>();
        offsets.forEach((tp, o) -> out.put(tp.toString(), o));
        return out;
    }

    /** The exception a future failed with, as {"class": ..., "message": ...}. */
    private static Map<String, Object> error(Throwable t) {
        Throwable cause = t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
        cause.printStackTrace(System.err);
        return obj("class", cause.getClass().getName(), "message", cause.getMessage());
    }

    // ---------------------------------------------------------------------------------------
    // plumbing: arguments, stdin, JSON

    private static List<String> stdinLines() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        return in.lines().filter(l -> !l.isBlank()).toList();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] unb64(String s) {
        return s.equals("-") ? null : Base64.getDecoder().decode(s);
    }

    /** {@code --name value} options (repeatable) and {@code --flag}s without a value. */
    private record Args(Map<String, List<String>> options) {

        static Args parse(String[] argv) {
            Map<String, List<String>> options = new LinkedHashMap<>();
            for (int i = 0; i < argv.length; i++) {
                if (!argv[i].startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument " + argv[i]);
                }
                String name = argv[i].substring(2);
                boolean hasValue = i + 1 < argv.length && !argv[i + 1].startsWith("--");
                options.computeIfAbsent(name, k -> new ArrayList<>()).add(hasValue ? argv[++i] : "true");
            }
            return new Args(options);
        }

        Optional<String> opt(String name) {
            List<String> v = options.get(name);
            return v == null ? Optional.empty() : Optional.of(v.get(v.size() - 1));
        }

        String required(String name) {
            return opt(name).orElseThrow(() -> new IllegalArgumentException("--" + name + " is required"));
        }

        long longOpt(String name, long fallback) {
            return opt(name).map(Long::parseLong).orElse(fallback);
        }

        boolean flag(String name) {
            return opt(name).map(Boolean::parseBoolean).orElse(false);
        }

        /** Every value of a repeatable option, commas splitting further: --topic a,b --topic c. */
        List<String> list(String name) {
            List<String> out = new ArrayList<>();
            options.getOrDefault(name, List.of()).forEach(v -> out.addAll(List.of(v.split(","))));
            if (out.isEmpty()) {
                throw new IllegalArgumentException("--" + name + " is required");
            }
            return out;
        }

        Map<String, String> keyValues(String name) {
            Map<String, String> out = new LinkedHashMap<>();
            for (String kv : options.getOrDefault(name, List.of())) {
                String[] p = kv.split("=", 2);
                if (p.length != 2) {
                    throw new IllegalArgumentException("--" + name + " wants key=value, got " + kv);
                }
                out.put(p[0], p[1]);
            }
            return out;
        }

        /** --bootstrap plus every --config key=value. */
        Properties clientProps() {
            Properties props = new Properties();
            props.put("bootstrap.servers", required("bootstrap"));
            props.putAll(keyValues("config"));
            return props;
        }
    }

    private static Map<String, Object> obj(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    private static synchronized void emit(Map<String, Object> m) {
        StringBuilder sb = new StringBuilder();
        json(sb, m);
        System.out.println(sb);
    }

    /** JSON for maps, lists, strings, numbers, booleans and null; byte arrays become base64. */
    private static void json(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof byte[] bytes) {
            json(sb, Base64.getEncoder().encodeToString(bytes));
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(sep);
                json(sb, String.valueOf(e.getKey()));
                sb.append(':');
                json(sb, e.getValue());
                sep = ",";
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            String sep = "";
            for (Object o : c) {
                sb.append(sep);
                json(sb, o);
                sep = ",";
            }
            sb.append(']');
        } else {
            String s = v.toString();
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char ch = s.charAt(i);
                switch (ch) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (ch < 0x20) {
                            sb.append(String.format("\\u%04x", (int) ch));
                        } else {
                            sb.append(ch);
                        }
                    }
                }
            }
            sb.append('"');
        }
    }
}
