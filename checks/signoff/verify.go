package signoff

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Input is what a verification reads.
type Input struct {
	// Change is the PR at the signed SHA: base and head trees, the files,
	// PR metadata and the review date. Verify reviews it with Registry.
	Change   *checks.Change
	Registry *checks.Registry
	SignOff  *SignOff
	// SHA is the head the verdict is for.
	SHA   string
	Teams Teams
	// GitHub holds checks 1-4, decided by the App from the API with
	// VerifySweep, VerifyEvals, VerifyRecipe and VerifyReuse. Missing
	// checks are reported as not run (a local verification).
	GitHub []Check
	// Notes are extra lines for the verdict (the head moved).
	Notes []string
	// Author is the account that posted the sign-off ("" when unknown,
	// as for a local file). A sign-off signed with another login than its
	// author's fails check 0: only the CODEOWNER's own account can vouch.
	Author string
	// Blockers reject the verdict whatever the checks say (the signed
	// commit cannot be told, say).
	Blockers []string
}

// Verify runs the checks and returns the verdict, checks in number order.
// It returns an error only when the change itself cannot be read; a check
// that cannot get its evidence fails, naming why.
func Verify(ctx context.Context, in Input) (*Verdict, error) {
	ch := in.Change
	res, err := checks.Review(ctx, in.Registry, ch)
	if err != nil {
		return nil, err
	}
	v := &Verdict{SHA: in.SHA, Signer: in.SignOff.Signer, Notes: in.Notes, Blockers: in.Blockers}
	// What the review did not judge (a file that could not be read, what
	// the review's budget refused) could hide what checks 6-12 look for:
	// it rejects the sign-off, naming each.
	for _, nr := range res.NotReviewed {
		what := "the review"
		if nr.Path != "" {
			what = prose.Code(nr.Path)
		}
		v.Blockers = append(v.Blockers, fmt.Sprintf("%s was not reviewed (%s), so the checks did not see it", what, prose.OneLine(nr.Reason)))
	}
	owner, err := VerifyOwner(ctx, ch, in.SignOff, in.Author, in.Teams)
	if err != nil {
		if owner, err = refused(CheckOwner, err); err != nil {
			return nil, err
		}
	}
	v.Checks = append(v.Checks, owner)
	have := map[int]bool{}
	for _, c := range in.GitHub {
		v.Checks = append(v.Checks, c)
		have[c.N] = true
	}
	var missing []int
	for n := CheckSweep; n <= CheckReuse; n++ {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	checklist, _, err := readOptional(ctx, ch.Base, ch.Config.Paths.Checklist)
	if err == nil {
		v.Checks = append(v.Checks, VerifyTemplate(TemplateInput{Checklist: string(checklist), Path: ch.Config.Paths.Checklist, SignOff: in.SignOff}))
	} else {
		c, err := refused(CheckTemplate, err)
		if err != nil {
			return nil, err
		}
		v.Checks = append(v.Checks, c)
	}
	rules, err := RuleChecks(ctx, RuleInput{Change: ch, Findings: res.Findings, SignOff: in.SignOff})
	if err != nil {
		c, err := refused(CheckImages, err)
		if err != nil {
			return nil, err
		}
		rules = []Check{c}
	}
	v.Checks = append(v.Checks, rules...)
	for _, e := range res.Errors {
		// A rule that could not read what it needed cannot vouch for the
		// check it feeds: fail closed.
		v.Checks = append(v.Checks, Check{N: CheckImages, Status: Fail, Reason: "the check library could not finish: " + e.Error()})
	}
	sort.SliceStable(v.Checks, func(i, j int) bool { return v.Checks[i].N < v.Checks[j].N })
	if len(missing) > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("Checks %d-%d (sweep runs, evals, upstream recipe state, reuse command) need GitHub and were not run here.", missing[0], missing[len(missing)-1]))
	}
	return v, nil
}

// refused turns a read the review's budget refused into failing check n
// (the reads of a review past its budget are refused, and so are the
// verifier's after it); any other error is returned as it is.
func refused(n int, err error) (Check, error) {
	if be := checks.AsBudgetError(err); be != nil {
		return Check{N: n, Status: Fail, Reason: "not verified: " + be.Error()}, nil
	}
	return Check{}, err
}

// VerifyOwner is check 0 on a change: the sign-off's `Signed:` login owns
// every changed path (old and new names of a moved file) per CODEOWNERS
// at base, and is its author's own (author "" is unknown, as for a local
// file). It is what decides whether a sign-off may move the status at
// all, so the App runs it before anything costly.
func VerifyOwner(ctx context.Context, ch *checks.Change, so *SignOff, author string, teams Teams) (Check, error) {
	var files []string
	for _, fc := range ch.Files {
		files = append(files, fc.Path)
		if fc.OldPath != "" && fc.OldPath != fc.Path {
			files = append(files, fc.OldPath)
		}
	}
	owners, _, err := readOptional(ctx, ch.Base, ch.Config.Paths.Codeowners)
	if err != nil {
		return Check{}, err
	}
	if author != "" && so.Signer != "" && !strings.EqualFold(author, so.Signer) {
		return Check{N: CheckOwner, Status: Fail, Reason: fmt.Sprintf("the sign-off is signed %s but was posted by %s; only a CODEOWNER's own account can sign off", prose.Code(so.Signer), prose.Code(author))}, nil
	}
	return VerifyOwners(ctx, OwnerInput{CODEOWNERS: owners, Path: ch.Config.Paths.Codeowners, Files: files, Signer: so.Signer, Teams: teams}), nil
}

// readOptional reads a file of a tree; absent is not an error.
func readOptional(ctx context.Context, t checks.Tree, p string) ([]byte, bool, error) {
	if p == "" {
		return nil, false, nil
	}
	b, err := t.ReadFile(ctx, p)
	if checks.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	return b, true, nil
}
