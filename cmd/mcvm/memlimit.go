// The default memory limit: three quarters of the least of the machine's memory and its cgroup limits.

package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// memoryFigure is an amount of memory the process may use, and where it
// was read.
type memoryFigure struct {
	bytes int64
	from  string
}

// memoryFigures reads from fsys (the root file system, or a test's) what
// bounds the memory of the process: MemTotal in /proc/meminfo, and the
// limits of the cgroups /proc/self/cgroup names with their ancestors:
// memory.max under /sys/fs/cgroup (cgroup v2), memory.limit_in_bytes
// under /sys/fs/cgroup/memory (v1's memory controller). A file that is
// missing or unreadable, or says there is no limit, gives no figure.
func memoryFigures(fsys fs.FS) []memoryFigure {
	var figs []memoryFigure
	if total := memTotal(fsys); total > 0 {
		figs = append(figs, memoryFigure{total, "MemTotal in /proc/meminfo"})
	}
	data, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return figs
	}
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var fig memoryFigure
		switch {
		case f[0] == "0" && f[1] == "":
			fig = cgroupLimit(fsys, "sys/fs/cgroup", f[2], "memory.max")
			fig.from = "the cgroup v2 limit in " + fig.from
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			fig = cgroupLimit(fsys, "sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes")
			fig.from = "the cgroup v1 limit in " + fig.from
		}
		if fig.bytes > 0 {
			figs = append(figs, fig)
		}
	}
	return figs
}

// memTotal returns MemTotal of /proc/meminfo in fsys, or 0.
func memTotal(fsys fs.FS) int64 {
	data, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 && kb < 1<<52 {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// cgroupLimit returns the least limit that file name gives in the
// directory of cgroup cg under mount and in its ancestors up to mount
// (a cgroup cannot use more than its parents allow), with the path of
// the file that gives it; bytes 0 when none gives one. A cgroup path
// that is not under mount (one of another cgroup namespace) is looked
// for at mount itself, the namespace's root.
func cgroupLimit(fsys fs.FS, mount, cg, name string) memoryFigure {
	var best memoryFigure
	dir := path.Join(mount, cg)
	if dir != mount && !strings.HasPrefix(dir, mount+"/") {
		dir = mount
	}
	for {
		file := path.Join(dir, name)
		if data, err := fs.ReadFile(fsys, file); err == nil {
			v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			// ("max", or v1's page-rounded 2^63-1: no limit)
			if err == nil && v > 0 && v < 1<<62 && (best.bytes == 0 || v < best.bytes) {
				best = memoryFigure{v, "/" + file}
			}
		}
		if dir == mount {
			return best
		}
		dir = path.Dir(dir)
	}
}

// autoMemoryLimit returns the default memory limit, three quarters of the
// least figure memoryFigures reads from fsys, and what it is for the
// report; 0 and why when no figure can be read.
func autoMemoryLimit(fsys fs.FS) (int64, string) {
	figs := memoryFigures(fsys)
	if len(figs) == 0 {
		return 0, "none: no figure of the memory available could be read (/proc/meminfo, /proc/self/cgroup); --memory-limit sets one"
	}
	least := figs[0]
	for _, f := range figs[1:] {
		if f.bytes < least.bytes {
			least = f
		}
	}
	return least.bytes / 4 * 3, fmt.Sprintf("3/4 of %s (%.1f GiB)", least.from, float64(least.bytes)/(1<<30))
}

// defaultMemoryLimit is autoMemoryLimit of the root file system, read
// once.
var defaultMemoryLimit = sync.OnceValues(func() (int64, string) { return autoMemoryLimit(os.DirFS("/")) })
