package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDocs_samples runs the commands whose output README.md and
// docs/asm.md show and compares: a README block that starts with an
// "mcvm ..." line is that command's whole output, run in the repository's
// root; a docs/asm.md block holds "$ mcvm ..." lines run in
// docs/examples/tutorial, each followed by its output, and "$ echo $?"
// followed by the exit code. A "..." line stands for any lines; "time:"
// lines, which measure the run, are not compared.
func TestDocs_samples(t *testing.T) {
	docOut = t.TempDir()
	defer func() { docOut = "" }()
	root := filepath.Join("..", "..")
	for _, doc := range []struct{ file, dir string }{
		{"README.md", root},
		{filepath.Join("docs", "asm.md"), filepath.Join(root, "docs", "examples", "tutorial")},
	} {
		data, err := os.ReadFile(filepath.Join(root, doc.file))
		if err != nil {
			t.Fatal(err)
		}
		ran := 0
		for _, block := range codeBlocks(string(data)) {
			if len(block) == 0 {
				continue
			}
			if strings.HasPrefix(block[0], "mcvm ") && len(block) > 1 && strings.HasPrefix(block[1], "verdict:") {
				ran++
				_, out := runDoc(doc.dir, block[0])
				if !matchSample(block, out) {
					t.Errorf("%s: the output of %q differs from the sample:\n%s\nwant:\n%s", doc.file, block[0], strings.Join(out, "\n"), strings.Join(block, "\n"))
				}
				continue
			}
			if !strings.HasPrefix(block[0], "$ mcvm ") {
				continue
			}
			code := 0
			for i := 0; i < len(block); {
				cmd := strings.TrimPrefix(block[i], "$ ")
				j := i + 1
				for j < len(block) && !strings.HasPrefix(block[j], "$ ") {
					j++
				}
				want := block[i+1 : j]
				if cmd == "echo $?" {
					if len(want) != 1 || want[0] != strconv.Itoa(code) {
						t.Errorf("%s: exit code %d, the sample says %q", doc.file, code, want)
					}
				} else {
					ran++
					var out []string
					code, out = runDoc(doc.dir, cmd)
					if len(want) > 0 && !strings.HasPrefix(want[0], "mcvm ") && len(out) > 0 && strings.HasPrefix(out[0], "mcvm ") {
						out = out[1:]
					}
					if !matchSample(want, out) {
						t.Errorf("%s: the output of %q differs from the sample:\n%s\nwant:\n%s", doc.file, cmd, strings.Join(out, "\n"), strings.Join(want, "\n"))
					}
				}
				i = j
			}
		}
		if ran == 0 {
			t.Errorf("%s: no documented command found", doc.file)
		}
	}
}

// codeBlocks returns the lines of the fenced code blocks of a Markdown text.
func codeBlocks(md string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "```") && !in:
			in, cur = true, nil
		case strings.HasPrefix(l, "```"):
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, l)
		}
	}
	return blocks
}

// runDoc runs a documented mcvm command line in dir, with the model
// paths made relative to it, and returns its exit code and output lines
// (stdout then stderr) with dir taken out of them again.
func runDoc(dir, cmd string) (int, []string) {
	args := strings.Fields(strings.TrimPrefix(cmd, "mcvm "))
	for i, a := range args {
		switch {
		case strings.HasSuffix(a, ".mcasm") || strings.HasSuffix(a, ".mcb"):
			args[i] = filepath.Join(dir, a)
			if _, err := os.Stat(args[i]); err != nil {
				// A path from the repository's root, as the text says.
				args[i] = filepath.Join("..", "..", a)
			}
		case docOut != "" && (strings.HasSuffix(a, ".scc") || strings.HasSuffix(a, ".trail") || strings.HasSuffix(a, ".html")):
			args[i] = filepath.Join(docOut, a) // files the commands write go to the test's directory
		}
	}
	code, out, errs := runMain(args...)
	text := strings.ReplaceAll(out+errs, filepath.Clean(dir)+"/", "")
	text = strings.ReplaceAll(text, "../../", "")
	if docOut != "" {
		text = strings.ReplaceAll(text, docOut+"/", "")
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l != "" || text != "" {
			lines = append(lines, l)
		}
	}
	if text == "" {
		lines = nil
	}
	return code, lines
}

// docOut is where the documented commands write their files
// (TestDocs_samples), not the source tree.
var docOut string

// matchSample reports whether got matches the sample want, in which "..."
// stands for any lines and "time:" lines are not compared.
func matchSample(want, got []string) bool {
	drop := func(ls []string) []string {
		var out []string
		for _, l := range ls {
			if !strings.HasPrefix(l, "time:") {
				out = append(out, strings.TrimRight(l, " "))
			}
		}
		return out
	}
	want, got = drop(want), drop(got)
	var match func(w, g []string) bool
	match = func(w, g []string) bool {
		if len(w) == 0 {
			return len(g) == 0
		}
		if w[0] == "..." {
			for k := 0; k <= len(g); k++ {
				if match(w[1:], g[k:]) {
					return true
				}
			}
			return false
		}
		return len(g) > 0 && w[0] == g[0] && match(w[1:], g[1:])
	}
	return match(want, got)
}
