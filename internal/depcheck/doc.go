// Package depcheck holds only a test: it enforces the direction of
// dependencies between mcvm's packages described in STYLE.md and
// docs/design.md, and that every third-party module is one RATIONALE.md
// lists.
package depcheck
