// certify --slurm: certification tasks as a Slurm job array and a dependent merge job.

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"mcvm/scc"
)

// slurmTaskBytes and slurmBaseBytes estimate a certification task's
// memory for its array job's --mem: the process, and each transition of
// the task (a state's fingerprint and the certifier's frames).
const (
	slurmTaskBytes = 256
	slurmBaseBytes = 256 << 20
)

// writeSlurm partitions the script into --tasks tasks in --slurm DIR
// and writes certify.sbatch (one array element a task: certify --task,
// with the flags given here), merge.sbatch (merge-fp of every task's FP
// map, its report in DIR/verdict.txt) and submit.sh, which submits the
// array and then the merge to start when the array has ended.
func (cf *certifyFlags) writeSlurm(fs *pflag.FlagSet, model string, stdout, stderr io.Writer) int {
	dir, err := filepath.Abs(*cf.slurm)
	if err != nil {
		return fail(stderr, "certify", err)
	}
	if strings.ContainsAny(dir, " \t\n'\"\\%") {
		return fail(stderr, "certify", fmt.Errorf("--slurm %q: the directory's path must not contain blanks, quotes, backslashes or %%", dir))
	}
	if model, err = filepath.Abs(model); err != nil {
		return fail(stderr, "certify", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(stderr, "certify", err)
	}
	data, err := readInput(*cf.script)
	if err != nil {
		return fail(stderr, "certify", err)
	}
	s, err := scc.Read(data)
	if err != nil {
		return fail(stderr, "certify", fmt.Errorf("%s: %w", *cf.script, err))
	}
	part, err := scc.Split(s, *cf.tasks)
	if err != nil {
		return fail(stderr, "certify", fmt.Errorf("%s: %w", *cf.script, err))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(stderr, "certify", err)
	}
	var largest int64
	fps := make([]string, len(part.Tasks))
	for i, t := range part.Tasks {
		name := filepath.Join(dir, fmt.Sprintf("task-%d", i+1))
		if err := replaceFile(name, scc.Encode(t)); err != nil {
			return fail(stderr, "certify", err)
		}
		fps[i] = shellQuote(name + ".fp")
		largest = max(largest, part.Sizes[i])
	}
	// The flags given here, for every task, but those that make the tasks.
	var pass []string
	fs.Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "slurm", "tasks", "jobs", "script", "task", "fp-out", "cpuprofile", "progress":
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				pass = append(pass, shellQuote("--"+fl.Name+"="+v))
			}
			return
		}
		pass = append(pass, shellQuote("--"+fl.Name+"="+fl.Value.String()))
	})
	mem := (slurmBaseBytes + largest*slurmTaskBytes) >> 20
	if limit, err := parseMemoryLimit(fs.Lookup("memory-limit").Value.String()); err == nil && fs.Changed("memory-limit") && limit > 0 {
		mem = limit * 5 / 4 >> 20
	}
	q := shellQuote
	array := fmt.Sprintf(`#!/bin/sh
# One task of a partitioned certification (mcvm certify --slurm): it
# writes the task's FP map for the merge job.
#SBATCH --job-name=mcvm-certify
#SBATCH --array=1-%d
#SBATCH --cpus-per-task=1
#SBATCH --mem=%dM
#SBATCH --output=%s
exec %s certify --task %s/task-"$SLURM_ARRAY_TASK_ID" --fp-out %s/task-"$SLURM_ARRAY_TASK_ID".fp --no-progress %s %s
`, len(part.Tasks), mem+1, filepath.Join(dir, "task-%a.log"), q(self), q(dir), q(dir), strings.Join(pass, " "), q(model))
	merge := fmt.Sprintf(`#!/bin/sh
# The verdict of a partitioned certification: the tasks' FP maps merged
# and checked together.
#SBATCH --job-name=mcvm-merge-fp
#SBATCH --cpus-per-task=1
#SBATCH --output=%s
exec %s merge-fp %s
`, filepath.Join(dir, "verdict.txt"), q(self), strings.Join(fps, " "))
	submit := slurmSubmit(dir, "the certification tasks' job array", "certify.sbatch", "the merge job, which writes the verdict to verdict.txt", "merge.sbatch")
	for name, text := range map[string]string{"certify.sbatch": array, "merge.sbatch": merge, "submit.sh": submit} {
		if err := replaceFile(filepath.Join(dir, name), []byte(text)); err != nil {
			return fail(stderr, "certify", err)
		}
	}
	fmt.Fprintf(stdout, "wrote %d certification tasks and their Slurm jobs to %s: submit them with sh %s; the verdict goes to %s\n",
		len(part.Tasks), dir, filepath.Join(dir, "submit.sh"), filepath.Join(dir, "verdict.txt"))
	return exitOK
}

// slurmSubmit returns submit.sh for dir: it submits the job array in
// script first (what) and then script then (thenWhat), to run when the
// array has ended (afterany: a failed element still reaches it), and
// prints the two job ids.
func slurmSubmit(dir, what, first, thenWhat, then string) string {
	return fmt.Sprintf(`#!/bin/sh
# Submits %s and, to run when it has ended,
# %s. Prints the two job ids.
set -eu
cd %s
array=$(sbatch --parsable %s)
array=${array%%%%;*}
echo "$array"
sbatch --parsable --dependency=afterany:"$array" %s
`, what, thenWhat, shellQuote(dir), first, then)
}
