package convention

import "math"

// z is the normal quantile of the one-sided 95% bounds the beliefs are
// judged by.
const z = 1.6448536269514722

// wilson returns the Wilson score interval of a proportion of s
// successes in n trials (s may be fractional: a family whose recipes
// disagree contributes its share). It is the interval that stays honest
// at the small counts conventions are mined from: 2 of 2 is not "100%"
// but "at least 43%".
func wilson(s, n float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := s / n
	if p < 0 {
		p = 0
	} else if p > 1 {
		p = 1
	}
	z2 := z * z
	den := 1 + z2/n
	center := (p + z2/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// diffLower is the lower 95% bound of p1 − p2 for two independent
// proportions, by Newcombe's hybrid score method (each side's Wilson
// interval, combined): how much more often the families that do X do Y
// than those that do not, at worst. A key every object has gives a bound
// at or below zero however many siblings have it.
func diffLower(s1, n1, s2, n2 float64) float64 {
	if n1 <= 0 || n2 <= 0 {
		return -1
	}
	p1, p2 := s1/n1, s2/n2
	l1, _ := wilson(s1, n1)
	_, u2 := wilson(s2, n2)
	return p1 - p2 - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
}
