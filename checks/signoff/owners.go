package signoff

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hmarr/codeowners"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Teams answers team membership for check 0. Known is false when the
// membership cannot be read (the token lacks the organization permission
// Members: read, or the team is secret): an unreadable team grants
// nobody ownership.
type Teams interface {
	Members(ctx context.Context, org, team string) (members []string, known bool, err error)
}

// OwnerInput is what check 0 reads.
type OwnerInput struct {
	// CODEOWNERS is the base branch's file ("" when it has none) and
	// Path its path, for citations.
	CODEOWNERS []byte
	Path       string
	// Files are the paths the PR changes.
	Files  []string
	Signer string
	Teams  Teams // may be nil: no team can be read
}

// grantHint says how to let the App read a team.
const grantHint = "grant the App the organization permission Members: read (and make the team visible), then sign off again"

// VerifyOwners is check 0: the signer owns every changed file per
// CODEOWNERS at base. The last matching pattern decides a file's owners
// (owners of earlier patterns do not accumulate); a file owned only
// through the catch-all `*` is covered by anyone CODEOWNERS lists by name
// or through a team whose members were read. A team whose members cannot
// be read never makes anyone an owner: it is only not held against a
// signer the same pattern lists by name, as the repository's own verifier
// decides.
func VerifyOwners(ctx context.Context, in OwnerInput) Check {
	c := Check{N: CheckOwner}
	if in.Signer == "" {
		c.Status, c.Reason = Fail, "the sign-off has no `Signed:` login, so there is no CODEOWNER to check"
		return c
	}
	if len(in.CODEOWNERS) == 0 {
		c.Status, c.Reason = Fail, fmt.Sprintf("the base branch has no %s, so %s cannot be verified as a CODEOWNER", orDefault(in.Path, ".github/CODEOWNERS"), prose.Code(in.Signer))
		return c
	}
	rules, err := codeowners.ParseFile(strings.NewReader(string(in.CODEOWNERS)))
	if err != nil {
		c.Status, c.Reason = Fail, fmt.Sprintf("%s at base does not parse: %v", orDefault(in.Path, "CODEOWNERS"), err)
		return c
	}
	path := orDefault(in.Path, "CODEOWNERS")
	teamCache := map[string]teamAnswer{}
	member := func(o codeowners.Owner) (yes, unknown bool, err error) {
		switch o.Type {
		case codeowners.UsernameOwner:
			return strings.EqualFold(o.Value, in.Signer), false, nil
		case codeowners.TeamOwner:
			a, ok := teamCache[o.Value]
			if !ok {
				a = askTeam(ctx, in.Teams, o.Value, in.Signer)
				teamCache[o.Value] = a
			}
			return a.member, !a.known, a.err
		}
		return false, false, nil
	}
	// Anyone listed by name or through a readable team is "a recognized
	// CODEOWNER", which is all a catch-all-owned file asks for.
	recognized, recognizedVia := false, ""
	var unknownTeams []string
	for _, r := range rules {
		for _, o := range r.Owners {
			yes, unknown, err := member(o)
			if err != nil {
				c.Status, c.Reason = Fail, fmt.Sprintf("could not read the members of %s: %v", prose.Code(o.String()), err)
				return c
			}
			if yes && !recognized {
				recognized, recognizedVia = true, fmt.Sprintf("%s:%d", path, r.LineNumber)
			}
			if unknown {
				unknownTeams = appendUnique(unknownTeams, prose.Code(o.String()))
			}
		}
	}
	var owned, catchAll, missing, unreadable []string
	for _, f := range in.Files {
		r, err := rules.Match(f)
		if err != nil {
			c.Status, c.Reason = Fail, fmt.Sprintf("matching %s against %s: %v", f, path, err)
			return c
		}
		if r == nil || len(r.Owners) == 0 {
			continue // nobody owns it: nothing to verify
		}
		if r.RawPattern() == "*" || r.RawPattern() == "/*" || r.RawPattern() == "**" {
			if recognized {
				catchAll = append(catchAll, f)
				continue
			}
			missing = append(missing, fmt.Sprintf("%s (%s:%d: %s)", prose.Code(f), path, r.LineNumber, ownersText(r.Owners)))
			continue
		}
		ok, maybe := false, false
		for _, o := range r.Owners {
			yes, unknown, _ := member(o)
			ok = ok || yes
			maybe = maybe || unknown
		}
		switch {
		case ok:
			owned = append(owned, fmt.Sprintf("%s (%s:%d)", prose.Code(f), path, r.LineNumber))
		case maybe:
			unreadable = append(unreadable, fmt.Sprintf("%s (%s:%d: %s)", prose.Code(f), path, r.LineNumber, ownersText(r.Owners)))
		default:
			missing = append(missing, fmt.Sprintf("%s (%s:%d: %s)", prose.Code(f), path, r.LineNumber, ownersText(r.Owners)))
		}
	}
	switch {
	case len(missing) > 0:
		sort.Strings(missing)
		c.Status = Fail
		c.Reason = fmt.Sprintf("%s is not a CODEOWNER of %s", prose.Code(in.Signer), limitList(missing, 4))
		return c
	case len(unreadable) > 0:
		sort.Strings(unreadable)
		c.Status = Fail
		c.Reason = fmt.Sprintf("%s is not listed by name for %s, and the members of %s could not be read, so they make nobody an owner: %s",
			prose.Code(in.Signer), limitList(unreadable, 4), strings.Join(unknownTeams, ", "), grantHint)
		return c
	}
	c.Status = Pass
	switch {
	case len(owned) > 0:
		c.Reason = fmt.Sprintf("%s owns %s", prose.Code(in.Signer), limitList(owned, 3))
		if len(catchAll) > 0 {
			c.Reason += fmt.Sprintf("; %d catch-all path(s) covered by a recognized CODEOWNER", len(catchAll))
		}
	case len(catchAll) > 0:
		c.Reason = fmt.Sprintf("every changed path is owned only by the catch-all rule, which any recognized CODEOWNER covers (%s: %s)", prose.Code(in.Signer), recognizedVia)
	default:
		c.Reason = "no changed path has an owner in " + path
	}
	if len(unknownTeams) > 0 {
		c.Reason += fmt.Sprintf(" (the members of %s could not be read; they grant nothing)", strings.Join(unknownTeams, ", "))
	}
	return c
}

type teamAnswer struct {
	member, known bool
	err           error
}

func askTeam(ctx context.Context, t Teams, team, login string) teamAnswer {
	if t == nil {
		return teamAnswer{}
	}
	org, slug, ok := strings.Cut(team, "/")
	if !ok {
		return teamAnswer{}
	}
	members, known, err := t.Members(ctx, org, slug)
	if err != nil || !known {
		return teamAnswer{err: err}
	}
	for _, m := range members {
		if strings.EqualFold(m, login) {
			return teamAnswer{member: true, known: true}
		}
	}
	return teamAnswer{known: true}
}

func ownersText(os []codeowners.Owner) string {
	var s []string
	for _, o := range os {
		s = append(s, prose.Code(o.String()))
	}
	return strings.Join(s, " ")
}

func limitList(items []string, n int) string {
	if len(items) <= n {
		return prose.JoinAnd(items)
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
