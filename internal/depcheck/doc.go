// Package depcheck holds only a test: it enforces the direction of
// dependencies between mcvm's packages described in STYLE.md.
package depcheck
