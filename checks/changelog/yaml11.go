package changelog

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The repository's tools load the changelog with a YAML 1.1 loader, which
// reads more plain scalars as non-strings than yaml.v3 (YAML 1.2) does:
// `yes`, `on` and `off` are booleans, `0o17` and `1e3` stay strings, a date
// is a timestamp. The entry schema is judged on the values those tools
// see, so plain scalars are re-resolved by the YAML 1.1 type rules
// (yaml.org/type).
var (
	yaml11Bool = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yaml11Int  = regexp.MustCompile(`^[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|0|[1-9][0-9_]*(?::[0-5]?[0-9])*)$`)
	yaml11Flt  = regexp.MustCompile(`^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yaml11Null = regexp.MustCompile(`^(?:~|null|Null|NULL)?$`)
	yaml11Time = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$`)
)

// resolve11 returns the YAML 1.1 tag of an untagged plain scalar.
func resolve11(s string) string {
	switch {
	case yaml11Null.MatchString(s):
		return "!!null"
	case yaml11Bool.MatchString(s):
		return "!!bool"
	case yaml11Int.MatchString(s):
		return "!!int"
	case yaml11Flt.MatchString(s):
		return "!!float"
	case yaml11Time.MatchString(s) && isDate(s):
		return "!!timestamp"
	case s == "<<":
		return "!!merge"
	case s == "=":
		return "!!value"
	}
	return "!!str"
}

// isDate: the one-or-two digit month and day forms need a full timestamp
// to be one; the bare date form needs exactly YYYY-MM-DD.
func isDate(s string) bool {
	if len(s) == 10 {
		return s[4] == '-' && s[7] == '-'
	}
	return len(s) > 10 && strings.ContainsAny(s[8:], "Tt \t")
}

// tag11 is the tag a YAML 1.1 loader gives n: plain, untagged scalars are
// re-resolved, everything else keeps yaml.v3's tag.
func tag11(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		return n.ShortTag()
	}
	if n.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.ShortTag()
	}
	return resolve11(n.Value)
}

// bool11 is the value of a YAML 1.1 boolean scalar.
func bool11(s string) bool {
	switch s {
	case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true
	}
	return false
}

// int11 is the value of a YAML 1.1 integer scalar (binary, octal, hex,
// base 60 and underscores included); ok is false when it overflows.
func int11(s string) (int64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var v int64
	var err error
	switch {
	case strings.Contains(s, ":"):
		for _, part := range strings.Split(s, ":") {
			d, e := strconv.ParseInt(part, 10, 64)
			if e != nil || v > math.MaxInt64/60 {
				return 0, false
			}
			v = v*60 + d
		}
	case strings.HasPrefix(s, "0b"):
		v, err = strconv.ParseInt(s[2:], 2, 64)
	case strings.HasPrefix(s, "0x"):
		v, err = strconv.ParseInt(s[2:], 16, 64)
	case len(s) > 1 && s[0] == '0':
		v, err = strconv.ParseInt(s[1:], 8, 64)
	default:
		v, err = strconv.ParseInt(s, 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// float11 is the value of a YAML 1.1 float scalar (NaN for .nan).
func float11(s string) (float64, bool) {
	t := strings.ReplaceAll(s, "_", "")
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case ".inf":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case ".nan":
		return math.NaN(), true
	}
	if strings.Contains(t, ":") {
		neg := strings.HasPrefix(t, "-")
		t = strings.TrimLeft(t, "+-")
		parts := strings.Split(t, ":")
		var v float64
		for i, p := range parts {
			d, err := strconv.ParseFloat(p, 64)
			if err != nil || (i < len(parts)-1 && strings.Contains(p, ".")) {
				return 0, false
			}
			v = v*60 + d
		}
		if neg {
			v = -v
		}
		return v, true
	}
	v, err := strconv.ParseFloat(t, 64)
	return v, err == nil
}
