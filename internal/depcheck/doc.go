// Package depcheck holds only a test: it enforces the direction of
// dependencies between mcvm's packages described in docs/design.md
// ("Overview") and in each package's doc, and that every third-party
// module is one RATIONALE.md lists.
package depcheck
