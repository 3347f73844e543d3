module mcvm

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/klauspost/compress v1.20.3
	github.com/spf13/pflag v1.0.10
)

require gonum.org/v1/gonum v0.17.0
