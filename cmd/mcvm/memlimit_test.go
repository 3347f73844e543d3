package main

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestAutoMemoryLimit reads the default memory limit from fake file
// systems: three quarters of the least of MemTotal and the limits of the
// process's cgroups (v2 and v1, with their ancestors), and none, said so,
// where no figure can be read.
func TestAutoMemoryLimit(t *testing.T) {
	const gib = 1 << 30
	meminfo := &fstest.MapFile{Data: []byte("MemTotal:       16777216 kB\nMemFree:        1000 kB\n")}
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name  string
		fs    fstest.MapFS
		limit int64
		from  string
	}{
		{"meminfo", fstest.MapFS{"proc/meminfo": meminfo}, 12 * gib, "MemTotal in /proc/meminfo"},
		{"v2", fstest.MapFS{
			"proc/meminfo":                     meminfo,
			"proc/self/cgroup":                 file("0::/ci/job7\n"),
			"sys/fs/cgroup/ci/job7/memory.max": file("4294967296\n"),
			"sys/fs/cgroup/ci/memory.max":      file("max\n"),
		}, 3 * gib, "cgroup v2 limit in /sys/fs/cgroup/ci/job7/memory.max"},
		{"v2-parent", fstest.MapFS{ // a parent's limit binds its children
			"proc/meminfo":                     meminfo,
			"proc/self/cgroup":                 file("0::/ci/job7\n"),
			"sys/fs/cgroup/ci/job7/memory.max": file("max\n"),
			"sys/fs/cgroup/ci/memory.max":      file("2147483648\n"),
		}, 3 * gib / 2, "cgroup v2 limit in /sys/fs/cgroup/ci/memory.max"},
		{"v2-namespace", fstest.MapFS{ // a container's own cgroup is the root it sees
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("1073741824\n"),
		}, 3 * gib / 4, "cgroup v2 limit in /sys/fs/cgroup/memory.max"},
		{"v2-above", fstest.MapFS{ // larger than the machine: MemTotal binds
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("68719476736\n"),
		}, 12 * gib, "MemTotal in /proc/meminfo"},
		{"v1", fstest.MapFS{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": file("9:name=systemd:/\n4:memory:/slurm/job42\n0::/\n"),
			"sys/fs/cgroup/memory/slurm/job42/memory.limit_in_bytes": file("8589934592\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes":             file("9223372036854771712\n"),
		}, 6 * gib, "cgroup v1 limit in /sys/fs/cgroup/memory/slurm/job42/memory.limit_in_bytes"},
		{"v1-host-path", fstest.MapFS{ // a path of another namespace: the mount's root
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": file("4:cpu,memory:/../docker/abc\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("4294967296\n"),
		}, 3 * gib, "cgroup v1 limit in /sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"cgroup-only", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("4294967296\n"),
		}, 3 * gib, "cgroup v2 limit"},
		{"garbage", fstest.MapFS{
			"proc/meminfo":             file("MemTotal: lots\n"),
			"proc/self/cgroup":         file("nonsense\n0::/\n:::\n"),
			"sys/fs/cgroup/memory.max": file("-5\n"),
		}, 0, "none: no figure"},
		{"nothing", fstest.MapFS{}, 0, "none: no figure of the memory available could be read"},
	} {
		limit, from := autoMemoryLimit(tc.fs)
		if limit != tc.limit || !strings.Contains(from, tc.from) {
			t.Errorf("%s: autoMemoryLimit = %d, %q; want %d, %q", tc.name, limit, from, tc.limit, tc.from)
		}
	}
}

// TestCheck_noMemoryFigure: a check whose default memory limit could not
// be read says so.
func TestCheck_noMemoryFigure(t *testing.T) {
	_, from := autoMemoryLimit(fstest.MapFS{})
	var b strings.Builder
	(&memory{LimitFrom: from}).printLimit(&b, "")
	if !strings.Contains(b.String(), "no memory limit: no figure of the memory available could be read") {
		t.Errorf("printLimit without a figure = %q", b.String())
	}
}
