// How the reports print an estimate.

package progress

import (
	"math"
	"strconv"
)

// Percent prints a share as a whole percentage, or with one decimal
// below 10%.
func Percent(x float64) string {
	if x < 0.1 {
		return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(100*x, 'f', 0, 64) + "%"
}

// RoundStates prints an estimated number of states to three significant
// digits.
func RoundStates(x float64) string {
	if x < 1000 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	if x >= 1e15 {
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-2)
	return strconv.FormatFloat(math.Round(x/p)*p, 'f', 0, 64)
}
