from pybroker.coordinator.partitioning import partition_for
from pybroker.jvm import string_hash as java_string_hash


def test_java_string_hash_matches_the_jvm():
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    # The classic string whose hashCode is Integer.MIN_VALUE.
    assert java_string_hash("polygenelubricants") == -(2**31)
    # Characters outside the BMP hash as two UTF-16 code units (0xD83D, 0xDE00).
    assert java_string_hash("\U0001F600") == 0xD83D * 31 + 0xDE00


def test_partition_uses_kafkas_utils_abs():
    # Utils.abs(Integer.MIN_VALUE) is 0, where Math.abs would stay negative.
    assert partition_for("polygenelubricants", 50) == 0
    assert partition_for("hello", 50) == 99162322 % 50
    negative = "my-group"
    assert java_string_hash(negative) < 0
    assert partition_for(negative, 50) == -java_string_hash(negative) % 50
    # what Kafka 3.9's Utils.abs(groupId.hashCode) % 50 gives on the JVM (masking the sign bit
    # off would give 36 for "my-group")
    assert java_string_hash("my-group") == -1906497762
    assert partition_for("my-group", 50) == 12
    assert partition_for("console-consumer-1", 50) == 24
