package convention

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// slotParts splits an object slot into the option and the identity key
// ("--kv-transfer-config kv_connector").
func slotParts(slot string) (flag, key string) {
	flag, key, _ = strings.Cut(slot, " ")
	return flag, key
}

// envParts splits a binding ("unset NAME") into its verb and name.
func envParts(y string) (verb, name string) {
	verb, name, _ = strings.Cut(y, " ")
	return verb, name
}

// statementMany says the beliefs X ⇒ y, for each of ys, in plain words.
func statementMany(c cand, ys []string) string {
	switch c.t {
	case tObject:
		flag, key := slotParts(c.slot)
		return fmt.Sprintf("A %s JSON whose %s is %s sets %s in the same object.", prose.Code(flag), prose.Code(key), prose.Code(c.val), codeList(ys))
	case tArmEnv:
		flag, key := slotParts(c.slot)
		return fmt.Sprintf("A branch that builds a %s JSON whose %s is %s also %s in that branch.", prose.Code(flag), prose.Code(key), prose.Code(c.val), envList(ys))
	case tFlagJSON:
		return fmt.Sprintf("A server command that passes %s sets %s in its JSON.", prose.Code(c.slot), codeList(ys))
	}
	return fmt.Sprintf("A server command that passes %s also passes %s.", prose.Code(c.slot), codeList(ys))
}

// togetherStatement says that options are always passed together.
func togetherStatement(set []string) string {
	if len(set) == 2 {
		return fmt.Sprintf("%s are passed together: a server command with one has the other.", codeList(set))
	}
	return fmt.Sprintf("%s are passed together: a server command with one of them has all of them.", codeList(set))
}

// count renders a family count that may be fractional ("2", "2.5").
func count(f float64) string {
	if math.Abs(f-math.Round(f)) < 0.05 {
		return strconv.Itoa(int(math.Round(f)))
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

func pct(f float64) string { return strconv.Itoa(int(math.Floor(f*100+1e-9))) + "%" }

func families(n int) string {
	if n == 1 {
		return "1 model family"
	}
	return strconv.Itoa(n) + " model families"
}

// doers says who does X, for evidence sentences.
func doers(c cand) string {
	switch c.t {
	case tObject:
		_, key := slotParts(c.slot)
		return fmt.Sprintf("configure %s %s", prose.Code(key), prose.Code(c.val))
	case tArmEnv:
		_, key := slotParts(c.slot)
		return fmt.Sprintf("select %s %s in a branch", prose.Code(key), prose.Code(c.val))
	}
	return fmt.Sprintf("pass %s", prose.Code(c.slot))
}

// others says who the alternatives are.
func others(c cand) string {
	switch c.t {
	case tObject:
		_, key := slotParts(c.slot)
		return fmt.Sprintf("use another %s there", prose.Code(key))
	case tArmEnv:
		_, key := slotParts(c.slot)
		return fmt.Sprintf("select another %s in a branch", prose.Code(key))
	}
	return fmt.Sprintf("run a server without %s", prose.Code(c.slot))
}

// does says what following is.
func does(c cand) string {
	switch c.t {
	case tObject:
		return fmt.Sprintf("set %s", prose.Code(c.y))
	case tArmEnv:
		verb, name := envParts(c.y)
		return fmt.Sprintf("%s %s there", verb, prose.Code(name))
	case tFlagJSON:
		return fmt.Sprintf("set %s in it", prose.Code(c.y))
	}
	return fmt.Sprintf("pass %s", prose.Code(c.y))
}

// evidenceText states the statistic in plain words.
func evidenceText(c cand, st stat) string {
	s := fmt.Sprintf("Model families that %s: %s; of them, %s %s (at 95%% confidence, the rate is at least %s).",
		doers(c), strconv.Itoa(st.families), count(st.follow), agreeCount(st.follow, does(c)), pct(st.lower))
	if c.t.hasContrast() {
		s += fmt.Sprintf(" Families that %s: %s; of them, %s %s.", others(c), strconv.Itoa(st.others), count(st.othersFollow), agreeCount(st.othersFollow, does(c)))
	}
	return s
}

// xShort names X in a clause.
func xShort(c cand) string {
	switch c.t {
	case tObject, tArmEnv:
		return prose.Code(c.val)
	}
	return prose.Code(c.slot)
}

// agreeCount conjugates for a count that may be fractional ("1 sets",
// "0.5 set").
func agreeCount(n float64, phrase string) string {
	if count(n) == "1" {
		return agree(1, phrase)
	}
	return phrase
}
