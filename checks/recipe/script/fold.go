package script

import "strings"

// ContainsFold reports whether sub occurs in s, ASCII case-insensitively,
// without allocating.
func ContainsFold(s, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	lo, up := lower(sub[0]), upper(sub[0])
	for i := 0; i+n <= len(s); i++ {
		if c := s[i]; (c == lo || c == up) && strings.EqualFold(s[i:i+n], sub) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
