package script

import "strings"

// GitKind names a git command that decides which commit a checkout holds.
type GitKind string

const (
	// GitClone is git clone.
	GitClone GitKind = "clone"
	// GitCheckout is git checkout or git switch: it moves the checkout.
	GitCheckout GitKind = "checkout"
	// GitReset is git reset: with a commit it moves the checkout.
	GitReset GitKind = "reset"
)

// GitOp is one git clone, checkout, switch or reset of the script.
type GitOp struct {
	Kind   GitKind
	Line   int
	Branch Branch
	// Repo is a clone's repository as written (a URL, a path or an
	// expansion), "" when the command names none.
	Repo string
	// Ref is what the command pins: a clone's --branch/-b or --revision,
	// a checkout's or reset's first argument that is no option. "" when
	// none is given.
	Ref string
	// Dir is a clone's destination as written ("" for the default, the
	// repository's name) or the directory of git -C.
	Dir string
	// Text is the first line of the command.
	Text string
}

// gitValueOpts are git clone's options that take a value as the next
// argument (when not written --opt=value).
var gitValueOpts = map[string]bool{
	"-b": true, "--branch": true, "--revision": true, "--depth": true, "-o": true, "--origin": true,
	"-u": true, "--upload-pack": true, "--reference": true, "--reference-if-able": true, "--separate-git-dir": true,
	"-c": true, "--config": true, "--shallow-since": true, "--shallow-exclude": true, "-j": true, "--jobs": true,
	"--template": true, "--filter": true, "--server-option": true, "--bundle-uri": true,
}

// gitCmd records a git clone, checkout, switch or reset. args starts at
// git itself.
func (x *extractor) gitCmd(args []string, p Branch, rec *callRec) {
	op := GitOp{Line: rec.line, Branch: p}
	i := 1
	// Options of git itself before the subcommand.
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-C":
			if i+1 < len(args) {
				op.Dir = args[i+1]
			}
			i += 2
		case "-c", "--git-dir", "--work-tree", "--namespace":
			i += 2
		default:
			i++
		}
	}
	if i >= len(args) {
		return
	}
	var pos []string
	switch args[i] {
	case "clone":
		op.Kind = GitClone
		for j := i + 1; j < len(args); j++ {
			a := args[j]
			if a == "--" {
				pos = append(pos, args[j+1:]...)
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				pos = append(pos, a)
				continue
			}
			name, val, eq := strings.Cut(a, "=")
			if !eq && gitValueOpts[name] && j+1 < len(args) {
				j++
				val = args[j]
			}
			if name == "-b" || name == "--branch" || name == "--revision" {
				op.Ref = val
			}
		}
		if len(pos) > 0 {
			op.Repo = pos[0]
		}
		if len(pos) > 1 {
			op.Dir = pos[1]
		}
	case "checkout", "switch", "reset":
		op.Kind = GitCheckout
		if args[i] == "reset" {
			op.Kind = GitReset
		}
		for _, a := range args[i+1:] {
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") {
				op.Ref = a
				break
			}
		}
	default:
		return
	}
	op.Text = firstLine(x.src(rec.call))
	x.f.Git = append(x.f.Git, op)
}

// PinnedLater reports whether a checkout or reset to a named commit
// follows the clone of line n, before the script's next clone: the usual
// way to pin a clone made without --branch.
func (f *Facts) PinnedLater(n int) bool {
	for _, g := range f.Git {
		if g.Line <= n {
			continue
		}
		if g.Kind == GitClone {
			return false
		}
		if g.Ref != "" {
			return true
		}
	}
	return false
}
