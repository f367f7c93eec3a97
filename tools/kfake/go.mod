module pybroker/tools/kfake

go 1.26.0

require github.com/twmb/franz-go/pkg/kfake v0.0.0-20260918054303-01f206a7e32c

// kfake is released as pseudo-versions of franz-go's main branch; this one uses kversion's
// feature listing, which franz-go has from v1.22, so franz-go is pinned above kfake's go.mod's.
require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twmb/franz-go v1.22.3 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.1 // indirect
)
